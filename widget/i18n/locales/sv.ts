// Widget strings: sv. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Kortnummer',
  expiryLabel: 'Utgångsdatum',
  expiryPlaceholder: 'MM / ÅÅ',
  cvvLabel: 'Säkerhetskod',
  nameLabel: 'Namn på kortet',
  numberRequired: 'Ange ditt kortnummer.',
  numberInvalid: 'Ange ett giltigt kortnummer.',
  numberIncomplete: 'Kortnumret är ofullständigt.',
  brandNotAccepted: '{brand}-kort accepteras inte.',
  expiryRequired: 'Ange utgångsdatum.',
  expiryInvalid: 'Ange utgångsdatum som MM / ÅÅ.',
  expiryPast: 'Kortet har gått ut.',
  expiryTooFar: 'Utgångsåret ligger för långt fram i tiden.',
  cvvRequired: 'Ange säkerhetskoden.',
  cvvInvalid: 'Säkerhetskoden måste ha {n} siffror.',
  nameInvalid: 'Kontrollera namnet på kortet.',
  network: 'Vi kunde inte nå betaltjänsten. Kontrollera anslutningen och försök igen.',
  declined: 'Kortuppgifterna godkändes inte. Kontrollera dem och försök igen.',
  unavailable: 'Kortbetalning är inte tillgänglig just nu.',
};

export default strings;
