// Widget strings: hi. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'कार्ड नंबर',
  expiryLabel: 'समाप्ति तिथि',
  expiryPlaceholder: 'MM / YY',
  cvvLabel: 'सुरक्षा कोड',
  nameLabel: 'कार्ड पर नाम',
  numberRequired: 'अपना कार्ड नंबर दर्ज करें।',
  numberInvalid: 'मान्य कार्ड नंबर दर्ज करें।',
  numberIncomplete: 'आपका कार्ड नंबर अधूरा है।',
  brandNotAccepted: '{brand} कार्ड स्वीकार नहीं किए जाते।',
  expiryRequired: 'समाप्ति तिथि दर्ज करें।',
  expiryInvalid: 'समाप्ति तिथि MM / YY के रूप में दर्ज करें।',
  expiryPast: 'इस कार्ड की अवधि समाप्त हो चुकी है।',
  expiryTooFar: 'समाप्ति वर्ष बहुत आगे का है।',
  cvvRequired: 'सुरक्षा कोड दर्ज करें।',
  cvvInvalid: 'सुरक्षा कोड {n} अंकों का होना चाहिए।',
  nameInvalid: 'कार्ड पर लिखा नाम जाँचें।',
  network: 'भुगतान सेवा से संपर्क नहीं हो सका। अपना कनेक्शन जाँचें और फिर से कोशिश करें।',
  declined: 'कार्ड का विवरण स्वीकार नहीं हुआ। उसे जाँचें और फिर से कोशिश करें।',
  unavailable: 'कार्ड से भुगतान अभी उपलब्ध नहीं है।',
};

export default strings;
