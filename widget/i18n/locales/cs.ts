// Widget strings: cs. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Číslo karty',
  expiryLabel: 'Platnost do',
  expiryPlaceholder: 'MM / RR',
  cvvLabel: 'Bezpečnostní kód',
  nameLabel: 'Jméno na kartě',
  numberRequired: 'Zadejte číslo karty.',
  numberInvalid: 'Zadejte platné číslo karty.',
  numberIncomplete: 'Číslo karty je neúplné.',
  brandNotAccepted: 'Karty {brand} nepřijímáme.',
  expiryRequired: 'Zadejte datum platnosti.',
  expiryInvalid: 'Zadejte platnost ve tvaru MM / RR.',
  expiryPast: 'Platnost této karty vypršela.',
  expiryTooFar: 'Rok platnosti je příliš daleko v budoucnosti.',
  cvvRequired: 'Zadejte bezpečnostní kód.',
  cvvInvalid: 'Bezpečnostní kód musí mít {n} číslice.',
  nameInvalid: 'Zkontrolujte jméno na kartě.',
  network: 'Platební službu se nepodařilo kontaktovat. Zkontrolujte připojení a zkuste to znovu.',
  declined: 'Údaje karty nebyly přijaty. Zkontrolujte je a zkuste to znovu.',
  unavailable: 'Platba kartou není momentálně dostupná.',
};

export default strings;
