// Hibi's service worker: the shell (styles, scripts, icons, offline page) is cached so the app opens on a
// phone and says clearly when the server cannot be reached. Pages and the API always go to the network:
// a journal must never show someone's stale or private data from a cache.
const SHELL = "hibi-shell-v1";
const ASSETS = [
  "/static/offline.html", "/static/offline.js", "/static/app.css", "/static/app.js", "/static/theme.js",
  "/static/diary.js", "/static/icon.svg", "/static/icons/icon-192.png", "/static/manifest.json", "/vendor/pico/pico.min.css",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(ASSETS)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((key) => key !== SHELL).map((key) => caches.delete(key))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    // Network first; the offline page only when the server cannot be reached.
    event.respondWith(fetch(request).catch(() => caches.match("/static/offline.html")));
    return;
  }
  if (url.pathname.startsWith("/static/") || url.pathname.startsWith("/vendor/")) {
    // Shell assets: the network when it answers (fresh after an upgrade), the cache when it does not.
    event.respondWith(fetch(request).then((response) => {
      if (response.ok && ASSETS.includes(url.pathname)) {
        const copy = response.clone();
        caches.open(SHELL).then((cache) => cache.put(request, copy));
      }
      return response;
    }).catch(() => caches.match(request).then((hit) => hit || Response.error())));
  }
});
