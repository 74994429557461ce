// Widget strings: ru. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Номер карты',
  expiryLabel: 'Срок действия',
  expiryPlaceholder: 'ММ / ГГ',
  cvvLabel: 'Код безопасности',
  nameLabel: 'Имя на карте',
  numberRequired: 'Введите номер карты.',
  numberInvalid: 'Введите действительный номер карты.',
  numberIncomplete: 'Номер карты введён не полностью.',
  brandNotAccepted: 'Карты {brand} не принимаются.',
  expiryRequired: 'Введите срок действия.',
  expiryInvalid: 'Введите срок действия в формате ММ / ГГ.',
  expiryPast: 'Срок действия карты истёк.',
  expiryTooFar: 'Год окончания срока действия слишком далеко в будущем.',
  cvvRequired: 'Введите код безопасности.',
  cvvInvalid: 'Код безопасности должен состоять из {n} цифр.',
  nameInvalid: 'Проверьте имя на карте.',
  network: 'Не удалось связаться с платёжным сервисом. Проверьте подключение и повторите попытку.',
  declined: 'Данные карты не приняты. Проверьте их и повторите попытку.',
  unavailable: 'Оплата картой сейчас недоступна.',
};

export default strings;
