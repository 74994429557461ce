// Widget strings: zh-hant (Traditional Chinese: Taiwan, Hong Kong, Macau). Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: '卡號',
  expiryLabel: '有效期限',
  expiryPlaceholder: 'MM / YY',
  cvvLabel: '安全碼',
  nameLabel: '持卡人姓名',
  numberRequired: '請輸入卡號。',
  numberInvalid: '請輸入有效的卡號。',
  numberIncomplete: '卡號不完整。',
  brandNotAccepted: '不接受 {brand} 卡。',
  expiryRequired: '請輸入有效期限。',
  expiryInvalid: '請依 MM / YY 格式輸入有效期限。',
  expiryPast: '此卡已過期。',
  expiryTooFar: '有效期限的年份過於久遠。',
  cvvRequired: '請輸入安全碼。',
  cvvInvalid: '安全碼必須為 {n} 位數字。',
  nameInvalid: '請檢查持卡人姓名。',
  network: '無法連線至付款服務。請檢查網路連線後再試一次。',
  declined: '卡片資料未被接受。請檢查後再試一次。',
  unavailable: '目前無法使用卡片付款。',
};

export default strings;
