// Widget strings: nl. Same keys as the English strings in ../strings.ts.
import type { Strings } from '../strings.js';

const strings: Strings = {
  numberLabel: 'Kaartnummer',
  expiryLabel: 'Vervaldatum',
  expiryPlaceholder: 'MM / JJ',
  cvvLabel: 'Beveiligingscode',
  nameLabel: 'Naam op de kaart',
  numberRequired: 'Voer je kaartnummer in.',
  numberInvalid: 'Voer een geldig kaartnummer in.',
  numberIncomplete: 'Je kaartnummer is onvolledig.',
  brandNotAccepted: '{brand}-kaarten worden niet geaccepteerd.',
  expiryRequired: 'Voer de vervaldatum in.',
  expiryInvalid: 'Voer de vervaldatum in als MM / JJ.',
  expiryPast: 'Deze kaart is verlopen.',
  expiryTooFar: 'Het vervaljaar ligt te ver in de toekomst.',
  cvvRequired: 'Voer de beveiligingscode in.',
  cvvInvalid: 'De beveiligingscode moet {n} cijfers hebben.',
  nameInvalid: 'Controleer de naam op de kaart.',
  network: 'De betaaldienst is niet bereikbaar. Controleer je verbinding en probeer het opnieuw.',
  declined: 'De kaartgegevens zijn niet geaccepteerd. Controleer ze en probeer het opnieuw.',
  unavailable: 'Betalen met een kaart is nu niet mogelijk.',
};

export default strings;
