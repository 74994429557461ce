// Widget strings: de. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Kartennummer',
  expiryLabel: 'Ablaufdatum',
  expiryPlaceholder: 'MM / JJ',
  cvvLabel: 'Sicherheitscode',
  nameLabel: 'Name auf der Karte',
  numberRequired: 'Geben Sie Ihre Kartennummer ein.',
  numberInvalid: 'Geben Sie eine gültige Kartennummer ein.',
  numberIncomplete: 'Ihre Kartennummer ist unvollständig.',
  brandNotAccepted: '{brand}-Karten werden nicht akzeptiert.',
  expiryRequired: 'Geben Sie das Ablaufdatum ein.',
  expiryInvalid: 'Geben Sie das Ablaufdatum als MM / JJ ein.',
  expiryPast: 'Diese Karte ist abgelaufen.',
  expiryTooFar: 'Das Ablaufjahr liegt zu weit in der Zukunft.',
  cvvRequired: 'Geben Sie den Sicherheitscode ein.',
  cvvInvalid: 'Der Sicherheitscode muss {n} Ziffern haben.',
  nameInvalid: 'Prüfen Sie den Namen auf der Karte.',
  network: 'Der Zahlungsdienst ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
  declined: 'Die Kartendaten wurden nicht akzeptiert. Prüfen Sie sie und versuchen Sie es erneut.',
  unavailable: 'Kartenzahlungen sind derzeit nicht verfügbar.',
};

export default strings;
