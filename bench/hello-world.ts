// The baseline: a bare Fastify server doing nothing, run as its own process like Mailroom is. Every
// scenario reports its throughput as a ratio of this one, measured in the same run on the same CPUs.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(JSON.stringify({ listening: address }));

const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
