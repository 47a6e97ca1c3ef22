import { applyD1Migrations, env } from 'cloudflare:test';
import { WEBCRYPTO_PBKDF2_MAX_ITERATIONS } from '../../workers/auth/src/passwords';

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// Production Workers refuse WebCrypto PBKDF2 above 100,000 iterations; local workerd does not.
// Make local behave like production so code that asks for more fails here first. This set-up runs
// before each file and the files share one workerd: the runtime's own function is kept on first
// use and wrapped once, not the previous file's wrapper again.
const runtimeDeriveBits = Symbol.for('auth-test:runtime-deriveBits');
const holder = globalThis as { [runtimeDeriveBits]?: SubtleCrypto['deriveBits'] };
const deriveBits = (holder[runtimeDeriveBits] ??= crypto.subtle.deriveBits.bind(crypto.subtle));
crypto.subtle.deriveBits = (algorithm, baseKey, length) => {
  if (
    typeof algorithm === 'object' &&
    algorithm.name === 'PBKDF2' &&
    'iterations' in algorithm &&
    Number(algorithm.iterations) > WEBCRYPTO_PBKDF2_MAX_ITERATIONS
  ) {
    return Promise.reject(
      new DOMException(`PBKDF2 iterations above ${WEBCRYPTO_PBKDF2_MAX_ITERATIONS} are not supported`, 'NotSupportedError'),
    );
  }
  return deriveBits(algorithm, baseKey, length);
};
