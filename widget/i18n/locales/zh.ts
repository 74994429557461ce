// Widget strings: zh (Simplified Chinese; Traditional is zh-hant). Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: '卡号',
  expiryLabel: '有效期',
  expiryPlaceholder: 'MM / YY',
  cvvLabel: '安全码',
  nameLabel: '持卡人姓名',
  numberRequired: '请输入卡号。',
  numberInvalid: '请输入有效的卡号。',
  numberIncomplete: '卡号不完整。',
  brandNotAccepted: '不接受 {brand} 卡。',
  expiryRequired: '请输入有效期。',
  expiryInvalid: '请按 MM / YY 格式输入有效期。',
  expiryPast: '此卡已过期。',
  expiryTooFar: '有效期年份过于久远。',
  cvvRequired: '请输入安全码。',
  cvvInvalid: '安全码必须为 {n} 位数字。',
  nameInvalid: '请检查持卡人姓名。',
  network: '无法连接支付服务。请检查网络连接后重试。',
  declined: '卡片信息未被接受。请检查后重试。',
  unavailable: '暂时无法使用银行卡支付。',
};

export default strings;
