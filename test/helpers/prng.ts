/** The seeded generator shared with the SYNTHETIC panel generator (one source: workers/synth/prng.ts). */
export { prng } from '../../workers/synth/prng.js';
