// Widget strings: es. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Número de tarjeta',
  expiryLabel: 'Fecha de caducidad',
  expiryPlaceholder: 'MM / AA',
  cvvLabel: 'Código de seguridad',
  nameLabel: 'Nombre en la tarjeta',
  numberRequired: 'Introduce el número de tu tarjeta.',
  numberInvalid: 'Introduce un número de tarjeta válido.',
  numberIncomplete: 'El número de tarjeta está incompleto.',
  brandNotAccepted: 'No se aceptan tarjetas {brand}.',
  expiryRequired: 'Introduce la fecha de caducidad.',
  expiryInvalid: 'Introduce la fecha de caducidad como MM / AA.',
  expiryPast: 'Esta tarjeta ha caducado.',
  expiryTooFar: 'El año de caducidad está demasiado lejos en el futuro.',
  cvvRequired: 'Introduce el código de seguridad.',
  cvvInvalid: 'El código de seguridad debe tener {n} dígitos.',
  nameInvalid: 'Revisa el nombre en la tarjeta.',
  network: 'No pudimos conectar con el servicio de pago. Revisa tu conexión e inténtalo de nuevo.',
  declined: 'No se aceptaron los datos de la tarjeta. Revísalos e inténtalo de nuevo.',
  unavailable: 'El pago con tarjeta no está disponible en este momento.',
};

export default strings;
