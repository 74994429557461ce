// Widget strings: fr. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Numéro de carte',
  expiryLabel: 'Date d’expiration',
  expiryPlaceholder: 'MM / AA',
  cvvLabel: 'Code de sécurité',
  nameLabel: 'Nom sur la carte',
  numberRequired: 'Saisissez votre numéro de carte.',
  numberInvalid: 'Saisissez un numéro de carte valide.',
  numberIncomplete: 'Votre numéro de carte est incomplet.',
  brandNotAccepted: 'Les cartes {brand} ne sont pas acceptées.',
  expiryRequired: 'Saisissez la date d’expiration.',
  expiryInvalid: 'Saisissez la date d’expiration au format MM / AA.',
  expiryPast: 'Cette carte a expiré.',
  expiryTooFar: 'L’année d’expiration est trop lointaine.',
  cvvRequired: 'Saisissez le code de sécurité.',
  cvvInvalid: 'Le code de sécurité doit comporter {n} chiffres.',
  nameInvalid: 'Vérifiez le nom sur la carte.',
  network: 'Le service de paiement est injoignable. Vérifiez votre connexion et réessayez.',
  declined: 'Les données de la carte n’ont pas été acceptées. Vérifiez-les et réessayez.',
  unavailable: 'Le paiement par carte est indisponible pour le moment.',
};

export default strings;
