// Widget strings: pl. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Numer karty',
  expiryLabel: 'Data ważności',
  expiryPlaceholder: 'MM / RR',
  cvvLabel: 'Kod bezpieczeństwa',
  nameLabel: 'Imię i nazwisko na karcie',
  numberRequired: 'Wpisz numer karty.',
  numberInvalid: 'Wpisz prawidłowy numer karty.',
  numberIncomplete: 'Numer karty jest niepełny.',
  brandNotAccepted: 'Karty {brand} nie są akceptowane.',
  expiryRequired: 'Wpisz datę ważności.',
  expiryInvalid: 'Wpisz datę ważności w formacie MM / RR.',
  expiryPast: 'Ta karta straciła ważność.',
  expiryTooFar: 'Rok ważności jest zbyt odległy.',
  cvvRequired: 'Wpisz kod bezpieczeństwa.',
  cvvInvalid: 'Kod bezpieczeństwa musi mieć {n} cyfry.',
  nameInvalid: 'Sprawdź imię i nazwisko na karcie.',
  network: 'Nie udało się połączyć z usługą płatności. Sprawdź połączenie i spróbuj ponownie.',
  declined: 'Dane karty nie zostały zaakceptowane. Sprawdź je i spróbuj ponownie.',
  unavailable: 'Płatności kartą są obecnie niedostępne.',
};

export default strings;
