// Widget strings: fi. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Kortin numero',
  expiryLabel: 'Voimassaolo',
  expiryPlaceholder: 'KK / VV',
  cvvLabel: 'Turvakoodi',
  nameLabel: 'Nimi kortissa',
  numberRequired: 'Anna kortin numero.',
  numberInvalid: 'Anna kelvollinen kortin numero.',
  numberIncomplete: 'Kortin numero on vajaa.',
  brandNotAccepted: '{brand}-kortteja ei hyväksytä.',
  expiryRequired: 'Anna voimassaolon päättymispäivä.',
  expiryInvalid: 'Anna voimassaolo muodossa KK / VV.',
  expiryPast: 'Kortti on vanhentunut.',
  expiryTooFar: 'Voimassaolovuosi on liian kaukana tulevaisuudessa.',
  cvvRequired: 'Anna turvakoodi.',
  cvvInvalid: 'Turvakoodissa on oltava {n} numeroa.',
  nameInvalid: 'Tarkista kortissa oleva nimi.',
  network: 'Maksupalveluun ei saatu yhteyttä. Tarkista yhteys ja yritä uudelleen.',
  declined: 'Kortin tietoja ei hyväksytty. Tarkista ne ja yritä uudelleen.',
  unavailable: 'Korttimaksu ei ole juuri nyt käytettävissä.',
};

export default strings;
