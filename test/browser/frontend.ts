import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

export const FRONTEND_PORT = 5173;
export const FRONTEND_URL = `http://localhost:${FRONTEND_PORT}`;

// The browser build is not among axios's exports; it sits next to its package.json.
const AXIOS = readFileSync(fileURLToPath(new URL('dist/axios.min.js', import.meta.resolve('axios/package.json'))));

/**
 * The SPA's account flow in miniature, written the way the real front end talks to Sanctum:
 * one axios instance with credentials and the XSRF header, the CSRF cookie first, then the
 * Fortify routes. Every step's status and body land in `window.spaResult` and the page.
 */
function page(apiUrl: string, account: { name: string; email: string; password: string }): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>croupier SPA check</title><script src="/axios.min.js"></script></head>
<body>
<pre id="result">running</pre>
<script>
(async () => {
  const api = axios.create({
    baseURL: ${JSON.stringify(apiUrl)},
    withCredentials: true,
    withXSRFToken: true,
    headers: { Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
    validateStatus: () => true,
  });
  const steps = [];
  const step = async (name, call) => {
    const response = await call();
    steps.push({ name, status: response.status, data: response.data, cookies: document.cookie });
  };
  try {
    await step('csrf-cookie', () => api.get('/api/csrf-cookie'));
    await step('register', () => api.post('/api/register', ${JSON.stringify({
      name: account.name,
      email: account.email,
      password: account.password,
      password_confirmation: account.password,
      agreement: true,
    })}));
    await step('user', () => api.get('/api/user'));
    await step('logout', () => api.post('/api/logout'));
    await step('user after logout', () => api.get('/api/user'));
    window.spaResult = { steps };
  } catch (error) {
    window.spaResult = { steps, error: String(error && error.stack || error) };
  }
  document.getElementById('result').textContent = JSON.stringify(window.spaResult, null, 2);
})();
</script>
</body>
</html>`;
}

export interface Frontend {
  close(): Promise<void>;
}

/** Serves the page and axios from http://localhost:5173, the SPA's origin in development. */
export async function startFrontend(apiUrl: string, account: { name: string; email: string; password: string }): Promise<Frontend> {
  const html = page(apiUrl, account);
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/axios.min.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(AXIOS);
    } else if (request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    } else {
      response.writeHead(404).end();
    }
  };
  // Both loopback addresses, as a dev server on "localhost" does: the browser may try either.
  const servers: Server[] = [];
  try {
    for (const host of ['127.0.0.1', '::1']) {
      const server = createServer(handle);
      const listening = await listen(server, host);
      if (listening) servers.push(server);
    }
  } catch (error) {
    await Promise.all(servers.map(close));
    throw error;
  }
  return { close: async () => void (await Promise.all(servers.map(close))) };
}

/** Listens on `host`; false when the machine has no such address (no IPv6). */
function listen(server: Server, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRNOTAVAIL' || error.code === 'EAFNOSUPPORT') resolve(false);
      else if (error.code === 'EADDRINUSE') {
        reject(
          new Error(
            `Port ${FRONTEND_PORT} is busy: the browser test serves the SPA page from ${FRONTEND_URL}. ` +
              'Stop whatever listens there (a Vite dev server?) and run it again.',
          ),
        );
      } else reject(error);
    });
    server.listen(FRONTEND_PORT, host, () => resolve(true));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
