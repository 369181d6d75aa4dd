import { loadConfigOrExit } from './config.ts';
import { startServer } from './server.ts';

async function main() {
  const config = loadConfigOrExit();
  const server = await startServer(config);
  const log = server.deps.log;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'draining requests and jobs');
    const forceExit = setTimeout(
      () => {
        log.error('shutdown timed out; exiting');
        process.exit(1);
      },
      (config.shutdownTimeoutSeconds + 5) * 1000,
    );
    forceExit.unref();
    await server.close();
    log.info('stopped cleanly');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
