import { createFaultProxy } from './fault-proxy';

// Started by Playwright as a web server: FAULT_PORT in front of FAULT_UPSTREAM.
const proxy = createFaultProxy(process.env.FAULT_UPSTREAM ?? 'http://127.0.0.1:4210');
console.log(`[fault-proxy] ${await proxy.listen(Number(process.env.FAULT_PORT ?? 4220))} -> ${process.env.FAULT_UPSTREAM}`);
