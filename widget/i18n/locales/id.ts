// Widget strings: id. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Nomor kartu',
  expiryLabel: 'Tanggal kedaluwarsa',
  expiryPlaceholder: 'BB / TT',
  cvvLabel: 'Kode keamanan',
  nameLabel: 'Nama pada kartu',
  numberRequired: 'Masukkan nomor kartu Anda.',
  numberInvalid: 'Masukkan nomor kartu yang valid.',
  numberIncomplete: 'Nomor kartu Anda belum lengkap.',
  brandNotAccepted: 'Kartu {brand} tidak diterima.',
  expiryRequired: 'Masukkan tanggal kedaluwarsa.',
  expiryInvalid: 'Masukkan tanggal kedaluwarsa sebagai BB / TT.',
  expiryPast: 'Kartu ini sudah kedaluwarsa.',
  expiryTooFar: 'Tahun kedaluwarsa terlalu jauh di masa depan.',
  cvvRequired: 'Masukkan kode keamanan.',
  cvvInvalid: 'Kode keamanan harus {n} digit.',
  nameInvalid: 'Periksa nama pada kartu.',
  network: 'Layanan pembayaran tidak dapat dihubungi. Periksa koneksi Anda dan coba lagi.',
  declined: 'Data kartu tidak diterima. Periksa dan coba lagi.',
  unavailable: 'Pembayaran kartu sedang tidak tersedia.',
};

export default strings;
