// Widget strings: tr. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Kart numarası',
  expiryLabel: 'Son kullanma tarihi',
  expiryPlaceholder: 'AA / YY',
  cvvLabel: 'Güvenlik kodu',
  nameLabel: 'Kart üzerindeki ad',
  numberRequired: 'Kart numaranızı girin.',
  numberInvalid: 'Geçerli bir kart numarası girin.',
  numberIncomplete: 'Kart numaranız eksik.',
  brandNotAccepted: '{brand} kartları kabul edilmiyor.',
  expiryRequired: 'Son kullanma tarihini girin.',
  expiryInvalid: 'Son kullanma tarihini AA / YY olarak girin.',
  expiryPast: 'Bu kartın süresi dolmuş.',
  expiryTooFar: 'Son kullanma yılı çok ileride.',
  cvvRequired: 'Güvenlik kodunu girin.',
  cvvInvalid: 'Güvenlik kodu {n} haneli olmalıdır.',
  nameInvalid: 'Kart üzerindeki adı kontrol edin.',
  network: 'Ödeme hizmetine ulaşılamadı. Bağlantınızı kontrol edip tekrar deneyin.',
  declined: 'Kart bilgileri kabul edilmedi. Kontrol edip tekrar deneyin.',
  unavailable: 'Kartla ödeme şu anda kullanılamıyor.',
};

export default strings;
