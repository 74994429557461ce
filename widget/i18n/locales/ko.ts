// Widget strings: ko. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: '카드 번호',
  expiryLabel: '유효 기간',
  expiryPlaceholder: 'MM / YY',
  cvvLabel: '보안 코드',
  nameLabel: '카드 소유자 이름',
  numberRequired: '카드 번호를 입력하세요.',
  numberInvalid: '올바른 카드 번호를 입력하세요.',
  numberIncomplete: '카드 번호가 완전하지 않습니다.',
  brandNotAccepted: '{brand} 카드는 사용할 수 없습니다.',
  expiryRequired: '유효 기간을 입력하세요.',
  expiryInvalid: '유효 기간을 MM / YY 형식으로 입력하세요.',
  expiryPast: '만료된 카드입니다.',
  expiryTooFar: '유효 기간 연도가 너무 먼 미래입니다.',
  cvvRequired: '보안 코드를 입력하세요.',
  cvvInvalid: '보안 코드는 {n}자리여야 합니다.',
  nameInvalid: '카드에 적힌 이름을 확인하세요.',
  network: '결제 서비스에 연결할 수 없습니다. 연결을 확인한 후 다시 시도하세요.',
  declined: '카드 정보가 승인되지 않았습니다. 확인한 후 다시 시도하세요.',
  unavailable: '지금은 카드 결제를 사용할 수 없습니다.',
};

export default strings;
