import { TEST_NAMESPACE } from './namespace';

// Every config a test file loads, and every chainsmith process it spawns, uses the suite's own namespace.
process.env.CHAINSMITH_TEMPORAL_NAMESPACE = TEST_NAMESPACE;
