// Widget strings: da. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Kortnummer',
  expiryLabel: 'Udløbsdato',
  expiryPlaceholder: 'MM / ÅÅ',
  cvvLabel: 'Sikkerhedskode',
  nameLabel: 'Navn på kortet',
  numberRequired: 'Indtast dit kortnummer.',
  numberInvalid: 'Indtast et gyldigt kortnummer.',
  numberIncomplete: 'Kortnummeret er ufuldstændigt.',
  brandNotAccepted: '{brand}-kort accepteres ikke.',
  expiryRequired: 'Indtast udløbsdatoen.',
  expiryInvalid: 'Indtast udløbsdatoen som MM / ÅÅ.',
  expiryPast: 'Kortet er udløbet.',
  expiryTooFar: 'Udløbsåret ligger for langt ude i fremtiden.',
  cvvRequired: 'Indtast sikkerhedskoden.',
  cvvInvalid: 'Sikkerhedskoden skal have {n} cifre.',
  nameInvalid: 'Kontrollér navnet på kortet.',
  network: 'Vi kunne ikke nå betalingstjenesten. Kontrollér forbindelsen, og prøv igen.',
  declined: 'Kortoplysningerne blev ikke godkendt. Kontrollér dem, og prøv igen.',
  unavailable: 'Kortbetaling er ikke tilgængelig lige nu.',
};

export default strings;
