// Widget strings: he. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  dir: 'rtl',
  numberLabel: 'מספר כרטיס',
  expiryLabel: 'תוקף',
  expiryPlaceholder: 'MM / YY',
  cvvLabel: 'קוד אבטחה',
  nameLabel: 'השם על הכרטיס',
  numberRequired: 'הזינו את מספר הכרטיס.',
  numberInvalid: 'הזינו מספר כרטיס תקין.',
  numberIncomplete: 'מספר הכרטיס אינו שלם.',
  brandNotAccepted: 'כרטיסי {brand} אינם מתקבלים.',
  expiryRequired: 'הזינו את תאריך התוקף.',
  expiryInvalid: 'הזינו את התוקף בפורמט MM / YY.',
  expiryPast: 'תוקף הכרטיס פג.',
  expiryTooFar: 'שנת התוקף רחוקה מדי בעתיד.',
  cvvRequired: 'הזינו את קוד האבטחה.',
  cvvInvalid: 'קוד האבטחה חייב להכיל {n} ספרות.',
  nameInvalid: 'בדקו את השם על הכרטיס.',
  network: 'לא הצלחנו להתחבר לשירות התשלומים. בדקו את החיבור ונסו שוב.',
  declined: 'פרטי הכרטיס לא התקבלו. בדקו אותם ונסו שוב.',
  unavailable: 'תשלום בכרטיס אינו זמין כרגע.',
};

export default strings;
