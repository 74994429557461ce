/**
 * Active ISO 4217 currency codes (list published by the ISO 4217 maintenance agency, 2025 edition: XCG replaces
 * ANG, ZWG replaces ZWL, SLE replaces SLL). Precious metals, the test code XTS, XXX and the SDR/SUCRE/ADB units
 * are left out: no card scheme settles in them. Used by the legacy charge and payment-token schemas
 * (legacy-card-api.md: "three-letter ISO currency code").
 */
export const ISO_4217_CODES: ReadonlySet<string> = new Set(
  (
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE ' +
    'CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF ' +
    'GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR ' +
    'LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN ' +
    'PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS ' +
    'TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ' +
    'ZMW ZWG'
  ).split(' '),
);

/** True for an active ISO 4217 code, upper case (`USD`). */
export function isIso4217(code: string): boolean {
  return ISO_4217_CODES.has(code);
}
