// Widget strings: pt (European Portuguese; Brazil is pt-br). Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Número do cartão',
  expiryLabel: 'Data de validade',
  expiryPlaceholder: 'MM / AA',
  cvvLabel: 'Código de segurança',
  nameLabel: 'Nome no cartão',
  numberRequired: 'Introduza o número do cartão.',
  numberInvalid: 'Introduza um número de cartão válido.',
  numberIncomplete: 'O número do cartão está incompleto.',
  brandNotAccepted: 'Os cartões {brand} não são aceites.',
  expiryRequired: 'Introduza a data de validade.',
  expiryInvalid: 'Introduza a data de validade como MM / AA.',
  expiryPast: 'Este cartão expirou.',
  expiryTooFar: 'O ano de validade está demasiado longe no futuro.',
  cvvRequired: 'Introduza o código de segurança.',
  cvvInvalid: 'O código de segurança deve ter {n} dígitos.',
  nameInvalid: 'Verifique o nome no cartão.',
  network: 'Não foi possível contactar o serviço de pagamento. Verifique a ligação e tente novamente.',
  declined: 'Os dados do cartão não foram aceites. Verifique-os e tente novamente.',
  unavailable: 'Os pagamentos com cartão não estão disponíveis neste momento.',
};

export default strings;
