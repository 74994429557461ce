// Widget strings: ar. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  dir: 'rtl',
  numberLabel: 'رقم البطاقة',
  expiryLabel: 'تاريخ الانتهاء',
  expiryPlaceholder: 'MM / YY',
  cvvLabel: 'رمز الأمان',
  nameLabel: 'الاسم على البطاقة',
  numberRequired: 'أدخل رقم بطاقتك.',
  numberInvalid: 'أدخل رقم بطاقة صالحًا.',
  numberIncomplete: 'رقم بطاقتك غير مكتمل.',
  brandNotAccepted: 'بطاقات {brand} غير مقبولة.',
  expiryRequired: 'أدخل تاريخ الانتهاء.',
  expiryInvalid: 'أدخل تاريخ الانتهاء بالصيغة MM / YY.',
  expiryPast: 'انتهت صلاحية هذه البطاقة.',
  expiryTooFar: 'سنة الانتهاء بعيدة جدًا في المستقبل.',
  cvvRequired: 'أدخل رمز الأمان.',
  cvvInvalid: 'يجب أن يتكون رمز الأمان من {n} أرقام.',
  nameInvalid: 'تحقق من الاسم على البطاقة.',
  network: 'تعذّر الوصول إلى خدمة الدفع. تحقق من اتصالك وحاول مرة أخرى.',
  declined: 'لم يتم قبول بيانات البطاقة. تحقق منها وحاول مرة أخرى.',
  unavailable: 'الدفع بالبطاقة غير متاح حاليًا.',
};

export default strings;
