// Widget strings: ja. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'カード番号',
  expiryLabel: '有効期限',
  expiryPlaceholder: 'MM / YY',
  cvvLabel: 'セキュリティコード',
  nameLabel: 'カード名義',
  numberRequired: 'カード番号を入力してください。',
  numberInvalid: '有効なカード番号を入力してください。',
  numberIncomplete: 'カード番号が不完全です。',
  brandNotAccepted: '{brand} のカードはご利用いただけません。',
  expiryRequired: '有効期限を入力してください。',
  expiryInvalid: '有効期限を MM / YY の形式で入力してください。',
  expiryPast: 'このカードは有効期限が切れています。',
  expiryTooFar: '有効期限の年が先すぎます。',
  cvvRequired: 'セキュリティコードを入力してください。',
  cvvInvalid: 'セキュリティコードは {n} 桁で入力してください。',
  nameInvalid: 'カード名義を確認してください。',
  network: '決済サービスに接続できませんでした。接続を確認して、もう一度お試しください。',
  declined: 'カード情報が承認されませんでした。内容を確認して、もう一度お試しください。',
  unavailable: '現在カード決済はご利用いただけません。',
};

export default strings;
