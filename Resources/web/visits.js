// Visits: maps (tiles from the configured server, a bundled world outline underneath for when
// tiles cannot load), geolocation for the form, photo upload and file import through the JSON API.
(() => {
  "use strict";

  const outlineCache = {};
  function loadOutline(url) {
    if (!outlineCache[url]) outlineCache[url] = fetch(url).then((r) => (r.ok ? r.json() : null)).catch(() => null);
    return outlineCache[url];
  }

  function makeMap(element, options = {}) {
    const map = L.map(element, { worldCopyJump: true, minZoom: 1, ...options });
    // The outline sits below the tiles: hidden by them when they load, visible when they do not.
    map.createPane("outline").style.zIndex = 150;
    loadOutline(element.dataset.outlineUrl).then((data) => {
      if (data) L.geoJSON(data, { pane: "outline", interactive: false, style: { color: "#8a8f98", weight: 1, opacity: 0.9 } }).addTo(map);
    });
    const tileURL = element.dataset.tileUrl;
    const notice = document.createElement("div");
    notice.className = "map-offline";
    notice.textContent = element.dataset.offlineText || "";
    notice.hidden = true;
    element.appendChild(notice);
    if (tileURL) {
      let failures = 0;
      const tiles = L.tileLayer(tileURL, {
        maxZoom: 19,
        attribution: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a>',
      });
      let zoomedOut = false;
      tiles.on("tileerror", () => {
        failures += 1;
        if (failures >= 2) {
          notice.hidden = false;
          // Without tiles only the outline is drawn; closer than country level there is nothing to see.
          if (!zoomedOut && map.getZoom() > 6) { zoomedOut = true; map.setZoom(6); }
        }
      });
      tiles.on("tileload", () => { failures = 0; notice.hidden = true; });
      tiles.addTo(map);
    } else {
      // No tile server chosen: the map is private by design, drawn from the outline and the person's points.
      notice.textContent = element.dataset.privateText || notice.textContent;
      notice.classList.add("map-private");
      notice.hidden = false;
      map.setMaxZoom(8);
    }
    element.classList.add("map-ready");
    return map;
  }

  // The compact map (CompactMap in Swift): fixed-width base-64 columns, decoded into the points the map draws.
  const DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  function column(col, count) {
    const values = new Array(count);
    for (let i = 0, p = 0; i < count; i++) {
      let v = 0;
      for (let k = 0; k < col.width; k++) v = v * 64 + DIGITS.indexOf(col.digits[p++]);
      values[i] = col.base + v;
    }
    return values;
  }
  function decodeCompact(data) {
    if (Array.isArray(data)) return data;
    const n = data.count;
    const lat = column(data.lat, n), lon = column(data.lon, n), at = column(data.at, n), name = column(data.name, n);
    const points = new Array(n);
    for (let i = 0; i < n; i++) {
      points[i] = { id: data.ids.substr(i * data.idLength, data.idLength).trim(), lat: lat[i] / 1e5, lon: lon[i] / 1e5,
        name: data.names[name[i]], at: at[i] * 60000 };
    }
    return points;
  }

  function popup(point, openText) {
    const box = document.createElement("div");
    const link = document.createElement("a");
    link.href = "/visits/" + encodeURIComponent(point.id);
    link.textContent = point.name;
    link.className = "popup-name";
    const when = document.createElement("div");
    when.className = "popup-time";
    when.textContent = new Date(point.at).toLocaleString(document.documentElement.lang, { dateStyle: "medium", timeStyle: "short" });
    const open = document.createElement("a");
    open.href = link.href;
    open.textContent = openText;
    box.append(link, when, open);
    return box;
  }

  async function overviewMap(element) {
    const map = makeMap(element);
    map.setView([20, 0], 1);
    let points = [];
    try {
      const response = await fetch(element.dataset.pointsUrl, { credentials: "same-origin" });
      if (response.ok) points = decodeCompact(await response.json());
    } catch (_) { /* the map still shows; the list below has every visit */ }
    // Clusters split at the deepest zoom the map allows: a private map (no tiles) stops at country level,
    // where two visits in one city would otherwise stay one "2" for ever.
    const layer = typeof L.markerClusterGroup === "function"
      ? L.markerClusterGroup({ chunkedLoading: true, disableClusteringAtZoom: map.getMaxZoom() })
      : L.layerGroup();
    for (const point of points) {
      L.marker([point.lat, point.lon], { title: point.name, alt: point.name })
        .bindPopup(() => popup(point, element.dataset.openText || "Open"))
        .addTo(layer);
    }
    layer.addTo(map);
    element.dataset.markers = String(points.length);
    // An overview: country level, where the bundled outline still gives context without tiles.
    if (points.length === 1) map.setView([points[0].lat, points[0].lon], 6);
    else if (points.length > 1) map.fitBounds(L.latLngBounds(points.map((p) => [p.lat, p.lon])), { padding: [30, 30], maxZoom: 15 });
    const routes = await workoutRoutes(map, element, points.length);
    const saved = await savedPlaces(map, element, points.length === 0 && !routes);
    window.hibiVisitsMap = { map, layer, routes, saved };
  }

  // Saved places (not visits: no time anyone was there) as yellow circles outside the visit clusters; the
  // newest 1000, the most one page of the API gives (the Saved places page lists every one).
  async function savedPlaces(map, element, frame) {
    const url = element.dataset.savedUrl;
    if (!url) return null;
    let places = [];
    try {
      const response = await fetch(url, { credentials: "same-origin" });
      if (response.ok) places = (await response.json()).places || [];
    } catch (_) { /* the visits are still shown */ }
    element.dataset.savedMarkers = String(places.length);
    if (!places.length) return null;
    const layer = L.layerGroup();
    for (const place of places) {
      L.circleMarker([place.latitude, place.longitude], { radius: 7, color: "#b8860b", weight: 3, fillColor: "#ffd43b", fillOpacity: 0.6, className: "saved-place-marker" })
        .bindPopup(() => {
          const box = document.createElement("div");
          const name = document.createElement("div");
          name.className = "popup-name";
          name.textContent = "⭐ " + place.name;
          const address = document.createElement("div");
          address.textContent = place.address;
          const open = document.createElement("a");
          open.href = element.dataset.savedPage || "/visits/saved-places";
          open.textContent = element.dataset.savedText || "Saved places";
          box.append(name, address, open);
          return box;
        })
        .addTo(layer);
    }
    layer.addTo(map);
    // With no visit or route to frame, the map frames the saved places.
    if (frame) map.fitBounds(L.latLngBounds(places.map((p) => [p.latitude, p.longitude])), { padding: [30, 30], maxZoom: 15 });
    return layer;
  }

  function routePopup(feature) {
    const box = document.createElement("div");
    const name = document.createElement("div");
    name.className = "popup-name";
    name.textContent = feature.properties.activity;
    const when = document.createElement("div");
    when.className = "popup-time";
    when.textContent = new Date(feature.properties.start).toLocaleString(document.documentElement.lang);
    box.append(name, when);
    if (feature.properties.distanceKm != null) {
      const distance = document.createElement("div");
      distance.textContent = feature.properties.distanceKm.toFixed(1) + " km";
      box.append(distance);
    }
    return box;
  }

  // Workout routes of the shown range (Apple Health) as lines under the markers; the server sends each
  // simplified and at most a bounded number of them, so a long history stays light.
  async function workoutRoutes(map, element, markerCount) {
    const url = element.dataset.routesUrl;
    if (!url) return null;
    let collection = null;
    try {
      const response = await fetch(url, { credentials: "same-origin" });
      if (response.ok) collection = await response.json();
    } catch (_) { /* the visits are still shown */ }
    const features = collection && Array.isArray(collection.features) ? collection.features : [];
    element.dataset.routes = String(features.length);
    if (!features.length) return null;
    const layer = L.geoJSON(features, {
      interactive: true,
      style: { color: "#d9480f", weight: 3, opacity: 0.8 },
      onEachFeature: (feature, line) => {
        line.bindPopup(() => routePopup(feature));
        // The path itself says which workout it is, for people and for tests.
        line.on("add", () => { const path = line.getElement && line.getElement(); if (path) path.setAttribute("data-workout", feature.id); });
      },
    }).addTo(map);
    // With no visits to frame, the map frames the routes.
    if (markerCount === 0) map.fitBounds(layer.getBounds(), { padding: [30, 30], maxZoom: 15 });
    return layer;
  }

  function detailMap(element) {
    const at = [Number(element.dataset.lat), Number(element.dataset.lon)];
    const map = makeMap(element);
    map.setView(at, 15);
    L.marker(at, { title: element.dataset.name }).addTo(map);
  }

  function pickerMap(element) {
    const form = element.closest("form");
    const lat = form.querySelector("#latitude");
    const lon = form.querySelector("#longitude");
    const accuracy = form.querySelector("#accuracy");
    const altitude = form.querySelector("#altitude");
    const status = form.querySelector("#location-status");
    const map = makeMap(element);
    let marker = null;
    function place(latitude, longitude, zoom) {
      const at = [latitude, longitude];
      if (marker) marker.setLatLng(at); else marker = L.marker(at).addTo(map);
      map.setView(at, zoom || Math.max(map.getZoom(), 14));
    }
    if (lat.value && lon.value && isFinite(Number(lat.value)) && isFinite(Number(lon.value))) {
      place(Number(lat.value), Number(lon.value), 15);
    } else {
      map.setView([20, 0], 1);
    }
    map.on("click", (event) => {
      const p = event.latlng.wrap();
      lat.value = p.lat.toFixed(6);
      lon.value = p.lng.toFixed(6);
      accuracy.value = "";
      place(p.lat, p.lng);
    });
    for (const field of [lat, lon]) {
      field.addEventListener("change", () => {
        if (isFinite(Number(lat.value)) && isFinite(Number(lon.value)) && lat.value && lon.value) place(Number(lat.value), Number(lon.value));
      });
    }
    const button = form.querySelector("#use-location");
    if (!("geolocation" in navigator)) {
      button.hidden = true;
      return;
    }
    button.addEventListener("click", () => {
      status.textContent = button.dataset.locating;
      navigator.geolocation.getCurrentPosition((position) => {
        const c = position.coords;
        lat.value = c.latitude.toFixed(7);
        lon.value = c.longitude.toFixed(7);
        accuracy.value = c.accuracy != null ? String(Math.round(c.accuracy * 100) / 100) : "";
        altitude.value = c.altitude != null ? String(Math.round(c.altitude * 100) / 100) : "";
        status.textContent = "±" + (accuracy.value || "?") + " m";
        place(c.latitude, c.longitude, 16);
      }, () => {
        status.textContent = button.dataset.failed;
      }, { enableHighAccuracy: true, timeout: 15000, maximumAge: 0 });
    });
  }

  function localNow() {
    const now = new Date();
    const pad = (n) => String(n).padStart(2, "0");
    return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}:${pad(now.getMinutes())}`;
  }

  async function errorText(response) {
    try {
      const body = await response.json();
      return body.error.message;
    } catch (_) {
      return "HTTP " + response.status;
    }
  }

  function photoUpload(input) {
    const status = document.getElementById("photo-status");
    input.addEventListener("change", async () => {
      const file = input.files[0];
      if (!file) return;
      status.textContent = input.dataset.uploading;
      const response = await window.hibiFetch(input.dataset.uploadUrl, {
        method: "POST", body: file, headers: { "Content-Type": file.type || "application/octet-stream" },
      });
      if (response.ok) window.location.reload();
      else { status.textContent = await errorText(response); status.classList.add("error-text"); input.value = ""; }
    });
  }

  function importForm(form) {
    const result = document.getElementById("import-result");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const file = form.querySelector("#import-file").files[0];
      if (!file) return;
      const isGPX = /\.gpx$/i.test(file.name) || /xml/.test(file.type);
      // A takeout's visits/location-points.csv goes back into the location history.
      const isCSV = /\.csv$/i.test(file.name) || /csv/.test(file.type);
      const type = isGPX ? "application/gpx+xml" : isCSV ? "text/csv" : "application/geo+json";
      const response = await window.hibiFetch(form.dataset.importUrl, { method: "POST", body: file, headers: { "Content-Type": type } });
      result.className = "notice " + (response.ok ? "success" : "error");
      result.setAttribute("role", response.ok ? "status" : "alert");
      if (response.ok) {
        const body = await response.json();
        // Saved places are not visits: "0 visits imported" would read as nothing happened.
        result.textContent = body.savedPlaces != null && form.dataset.donePlaces
          ? form.dataset.donePlaces.replace("%@", String(body.savedPlaces))
          : form.dataset.done.replace("%@", String(body.imported));
        // What happened to each kind of element (approximate times, duplicates, track points skipped).
        if (Array.isArray(body.summary) && body.summary.length) {
          const list = document.createElement("ul");
          list.className = "import-report";
          for (const line of body.summary) {
            const item = document.createElement("li");
            item.textContent = line;
            list.appendChild(item);
          }
          result.appendChild(list);
        }
      } else {
        result.textContent = await errorText(response);
      }
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (typeof L !== "undefined") {
      const overview = document.getElementById("visits-map");
      if (overview) overviewMap(overview);
      const detail = document.getElementById("detail-map");
      if (detail) detailMap(detail);
      const picker = document.getElementById("picker-map");
      if (picker) pickerMap(picker);
    }
    const when = document.querySelector('input[data-default-now="true"]');
    if (when && !when.value) when.value = localNow();
    const photo = document.getElementById("photo-input");
    if (photo) photoUpload(photo);
    const importer = document.getElementById("import-form");
    if (importer) importForm(importer);
  });
})();
