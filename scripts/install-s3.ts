/** `npm run setup:s3`: make sure the S3-compatible test server (moto) is available, installing it into `.s3/`. */
import { ensureS3Server, S3_INSTALL_HINT } from './s3-test-server';

const quiet = process.argv.includes('--quiet');
try {
  const found = ensureS3Server((line) => console.error(line));
  if (found) {
    if (!quiet) console.log(`S3 test server: ${[found.command, ...found.args].join(' ')} (${found.source})`);
  } else {
    console.error(`the S3 test server could not be installed: ${S3_INSTALL_HINT}`);
    process.exit(1);
  }
} catch (err) {
  console.error(`error: ${(err as Error).message}`);
  process.exit(1);
}
