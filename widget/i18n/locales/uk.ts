// Widget strings: uk. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Номер картки',
  expiryLabel: 'Термін дії',
  expiryPlaceholder: 'ММ / РР',
  cvvLabel: 'Код безпеки',
  nameLabel: 'Ім’я на картці',
  numberRequired: 'Введіть номер картки.',
  numberInvalid: 'Введіть дійсний номер картки.',
  numberIncomplete: 'Номер картки введено не повністю.',
  brandNotAccepted: 'Картки {brand} не приймаються.',
  expiryRequired: 'Введіть термін дії.',
  expiryInvalid: 'Введіть термін дії у форматі ММ / РР.',
  expiryPast: 'Термін дії картки минув.',
  expiryTooFar: 'Рік закінчення терміну дії занадто далеко в майбутньому.',
  cvvRequired: 'Введіть код безпеки.',
  cvvInvalid: 'Код безпеки має містити {n} цифри.',
  nameInvalid: 'Перевірте ім’я на картці.',
  network: 'Не вдалося зв’язатися з платіжним сервісом. Перевірте з’єднання та спробуйте ще раз.',
  declined: 'Дані картки не прийнято. Перевірте їх і спробуйте ще раз.',
  unavailable: 'Оплата карткою зараз недоступна.',
};

export default strings;
