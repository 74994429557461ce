// Widget strings: it. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Numero della carta',
  expiryLabel: 'Data di scadenza',
  expiryPlaceholder: 'MM / AA',
  cvvLabel: 'Codice di sicurezza',
  nameLabel: 'Nome sulla carta',
  numberRequired: 'Inserisci il numero della carta.',
  numberInvalid: 'Inserisci un numero di carta valido.',
  numberIncomplete: 'Il numero della carta è incompleto.',
  brandNotAccepted: 'Le carte {brand} non sono accettate.',
  expiryRequired: 'Inserisci la data di scadenza.',
  expiryInvalid: 'Inserisci la data di scadenza nel formato MM / AA.',
  expiryPast: 'Questa carta è scaduta.',
  expiryTooFar: 'L’anno di scadenza è troppo lontano nel futuro.',
  cvvRequired: 'Inserisci il codice di sicurezza.',
  cvvInvalid: 'Il codice di sicurezza deve avere {n} cifre.',
  nameInvalid: 'Controlla il nome sulla carta.',
  network: 'Impossibile raggiungere il servizio di pagamento. Controlla la connessione e riprova.',
  declined: 'I dati della carta non sono stati accettati. Controllali e riprova.',
  unavailable: 'I pagamenti con carta non sono disponibili al momento.',
};

export default strings;
