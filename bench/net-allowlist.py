#!/usr/bin/env python3
# CPU time (user+sys of cordon and everything under it, os.wait4 rusage; not wall time) of:
#   start-up        cordon -q -- /bin/true, without and with --allow-net
#   connections     200 sequential HTTP GETs (one connection each) to a local server:
#                   --net direct vs --allow-net through the proxy
#   download        100 MB over HTTP: --net direct vs --allow-net through the proxy
# Usage: python3 bench/net-allowlist.py bin/cordon   (min of 3 runs each)
import http.server, os, subprocess, sys, threading

cordon = sys.argv[1]
BIG = 100 * 1024 * 1024
CHUNK = b'x' * (1 << 20)

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.0'
    def do_GET(self):
        n = BIG if self.path == '/big' else 3
        self.send_response(200)
        self.send_header('Content-Length', str(n))
        self.end_headers()
        if n == 3:
            self.wfile.write(b'ok\n')
        else:
            for _ in range(n >> 20):
                self.wfile.write(CHUNK)
    def log_message(self, *a):
        pass

srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
port = srv.server_address[1]
threading.Thread(target=srv.serve_forever, daemon=True).start()

def cpu(argv):
    best = None
    for _ in range(3):
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        if status != 0:
            raise SystemExit(f'failed ({status}): {argv}')
        t = ru.ru_utime + ru.ru_stime
        best = t if best is None else min(best, t)
    return best * 1000

node = subprocess.check_output(['node', '-p', 'process.execPath'], text=True).strip()
loop = ("(async()=>{for(let i=0;i<200;i++){const r=await fetch(process.argv[1],{headers:{connection:'close'}});"
        "await r.text();}})().catch(e=>{console.error(e);process.exit(1)})")
url = f'http://localhost:{port}/'
allow = ['--allow-net', f'localhost:{port}']
via = ['env', '-u', 'NO_PROXY', '-u', 'no_proxy']
rows = [
    ('start-up, no allowlist', [cordon, '-q', '--', '/bin/true']),
    ('start-up, --allow-net', [cordon, '-q', *allow, '--', '/bin/true']),
    ('200 GETs, --net direct', [cordon, '-q', '--net', '--', node, '-e', loop, url]),
    ('200 GETs, --allow-net proxy', [cordon, '-q', *allow, '--', *via, node, '-e', loop, url]),
    ('100 MB, --net direct', [cordon, '-q', '--net', '--', 'curl', '-sS', '-o', '/dev/null', url + 'big']),
    ('100 MB, --allow-net proxy', [cordon, '-q', *allow, '--', *via, 'curl', '-sS', '-o', '/dev/null', url + 'big']),
]
for name, argv in rows:
    print(f'{name:32s} {cpu(argv):8.0f} ms CPU')
