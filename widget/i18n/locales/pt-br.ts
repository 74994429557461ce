// Widget strings: pt-br (Brazilian Portuguese; other Portuguese is pt). Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Número do cartão',
  expiryLabel: 'Data de validade',
  expiryPlaceholder: 'MM / AA',
  cvvLabel: 'Código de segurança',
  nameLabel: 'Nome no cartão',
  numberRequired: 'Digite o número do cartão.',
  numberInvalid: 'Digite um número de cartão válido.',
  numberIncomplete: 'O número do cartão está incompleto.',
  brandNotAccepted: 'Cartões {brand} não são aceitos.',
  expiryRequired: 'Digite a data de validade.',
  expiryInvalid: 'Digite a data de validade no formato MM / AA.',
  expiryPast: 'Este cartão está vencido.',
  expiryTooFar: 'O ano de validade está muito distante no futuro.',
  cvvRequired: 'Digite o código de segurança.',
  cvvInvalid: 'O código de segurança deve ter {n} dígitos.',
  nameInvalid: 'Verifique o nome no cartão.',
  network: 'Não foi possível conectar ao serviço de pagamento. Verifique sua conexão e tente novamente.',
  declined: 'Os dados do cartão não foram aceitos. Verifique-os e tente novamente.',
  unavailable: 'Pagamentos com cartão estão indisponíveis no momento.',
};

export default strings;
