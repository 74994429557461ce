// Widget strings: nb. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Kortnummer',
  expiryLabel: 'Utløpsdato',
  expiryPlaceholder: 'MM / ÅÅ',
  cvvLabel: 'Sikkerhetskode',
  nameLabel: 'Navn på kortet',
  numberRequired: 'Skriv inn kortnummeret ditt.',
  numberInvalid: 'Skriv inn et gyldig kortnummer.',
  numberIncomplete: 'Kortnummeret er ufullstendig.',
  brandNotAccepted: '{brand}-kort godtas ikke.',
  expiryRequired: 'Skriv inn utløpsdatoen.',
  expiryInvalid: 'Skriv inn utløpsdatoen som MM / ÅÅ.',
  expiryPast: 'Kortet er utløpt.',
  expiryTooFar: 'Utløpsåret er for langt frem i tid.',
  cvvRequired: 'Skriv inn sikkerhetskoden.',
  cvvInvalid: 'Sikkerhetskoden må ha {n} sifre.',
  nameInvalid: 'Sjekk navnet på kortet.',
  network: 'Vi fikk ikke kontakt med betalingstjenesten. Sjekk tilkoblingen og prøv igjen.',
  declined: 'Kortopplysningene ble ikke godtatt. Sjekk dem og prøv igjen.',
  unavailable: 'Kortbetaling er ikke tilgjengelig akkurat nå.',
};

export default strings;
