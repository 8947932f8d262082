"""Maps are private by default (issue 33, item 6): until an administrator chooses a tile server, no map
page makes the browser ask another host for anything, and every map still draws (the bundled world
outline, the visits, a workout track). Once a tile server is chosen on /admin/map the maps load tiles
from it, and clearing the field makes them private again."""
import http.server
import json
import threading
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import absent, csp_violations, make_browser, shot
from test_accounts import fill, settle, submit, wait_text
from test_visits import add_visit_here, go, set_up
from test_workout_routes import export_with_route

# A 1×1 PNG: what the stand-in tile server answers for every tile.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def requested_urls(driver):
    """Every URL the browser asked for since the last call (CDP Network.requestWillBeSent)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def other_hosts(urls, base):
    own = urllib.parse.urlsplit(base).netloc
    return sorted({u for u in urls if urllib.parse.urlsplit(u).scheme in ("http", "https", "ws", "wss")
                   and urllib.parse.urlsplit(u).netloc != own})


def wait_drawn(driver, map_id):
    """The map is ready and its outline (country shapes from the bundled file) is drawn."""
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#{map_id}.map-ready .leaflet-outline-pane path"))


def japanese_dark(driver):
    """Switches the signed-in person to Japanese and the dark theme, as the language menu and theme do."""
    driver.add_cookie({"name": "hibi-theme", "value": "dark", "path": "/"})
    old = driver.find_element(By.TAG_NAME, "html")
    driver.execute_script("const f = document.getElementById('language-select'); f.value = 'ja'; f.form.submit();")
    settle(driver, old)


class TileHandler(http.server.BaseHTTPRequestHandler):
    hits = []

    def do_GET(self):  # noqa: N802 (the standard library's name)
        TileHandler.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(PNG)))
        self.end_headers()
        self.wfile.write(PNG)

    def log_message(self, *args):
        pass


def test_no_map_page_asks_another_host_until_an_administrator_chooses_a_tile_server(server):
    base = server["base"]
    driver = make_browser(width=1366, height=768, network_log=True)
    try:
        set_up(driver, base)
        # A visit (from a faked GPS fix) and a workout with a route, so every map has something to draw.
        visit_path = add_visit_here(driver, base, "Tokyo Station")
        go(driver, base + "/health/import")
        driver.find_element(By.ID, "apple-file").send_keys(export_with_route())
        driver.find_element(By.ID, "apple-submit").click()
        wait_text(driver, "#import-message", "Import finished", timeout=30)
        requested_urls(driver)  # forget the set-up's requests

        pages = [("/visits", "visits-map"), ("/visits?from=2024-05-01&to=2024-05-31", "visits-map"),
                 ("/visits/new", "picker-map"), (visit_path, "detail-map"), (visit_path + "/edit", "picker-map")]
        for path, map_id in pages:
            go(driver, base + path)
            wait_drawn(driver, map_id)
            notice = driver.find_element(By.CSS_SELECTOR, f"#{map_id} .map-offline")
            assert notice.is_displayed() and "Private map" in notice.text, path
            if path == "/visits":
                WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "visits-map").get_attribute("data-markers") == "1")
                assert driver.find_elements(By.CSS_SELECTOR, "#visits-map .leaflet-marker-icon")
                shot(driver, "private-maps-01-visits-laptop")
            if "from=2024-05-01" in path:
                WebDriverWait(driver, 15).until(lambda d: d.find_element(By.ID, "visits-map").get_attribute("data-routes") == "1")
                assert driver.find_elements(By.CSS_SELECTOR, "#visits-map path[data-workout]")
                shot(driver, "private-maps-02-track-laptop")
            if path == visit_path:
                assert driver.find_elements(By.CSS_SELECTOR, "#detail-map .leaflet-marker-icon")
            driver.execute_script("return new Promise(r => setTimeout(r, 1500))")  # let late tile requests start
            urls = requested_urls(driver)
            assert any(u.endswith("/static/world-110m.geojson") or "/visits" in u for u in urls), urls
            assert other_hosts(urls, base) == [], (path, other_hosts(urls, base))
            # The same through the page's own record of what it loaded.
            entries = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
            assert other_hosts(entries, base) == [], (path, entries)
            assert not absent(driver, By.CSS_SELECTOR, ".leaflet-tile"), path

        # The day page's map is drawn on the server (SVG, no tiles at all).
        go(driver, base + "/")
        assert other_hosts(requested_urls(driver), base) == []

        # The administrator page says what a tile server would learn, then a tile server is chosen.
        go(driver, base + "/admin/map")
        wait_text(driver, "#map-tiles-state", "No tile server is chosen")
        wait_text(driver, "#map-tiles-learns", "A tile server learns which areas each person looks at")
        shot(driver, "private-maps-03-admin")
        fill(driver, tile_url="javascript:alert(1)")
        submit(driver, "map-tiles-form")
        wait_text(driver, ".notice.error", "That is not a tile URL")

        tiles = http.server.ThreadingHTTPServer(("127.0.0.1", 0), TileHandler)
        threading.Thread(target=tiles.serve_forever, daemon=True).start()
        try:
            template = f"http://localhost:{tiles.server_address[1]}/{{z}}/{{x}}/{{y}}.png"
            fill(driver, tile_url=template)
            submit(driver, "map-tiles-form")
            wait_text(driver, ".notice.success", "Saved")
            wait_text(driver, "#map-tiles-state", f"Maps load tiles from localhost:{tiles.server_address[1]}")
            requested_urls(driver)
            go(driver, base + visit_path)
            WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#detail-map img.leaflet-tile-loaded"))
            assert TileHandler.hits, "the chosen tile server was asked for tiles"
            assert any(u.startswith(f"http://localhost:{tiles.server_address[1]}/") for u in requested_urls(driver))

            # Cleared: private again.
            go(driver, base + "/admin/map")
            driver.find_element(By.ID, "tile_url").clear()
            submit(driver, "map-tiles-form")
            wait_text(driver, "#map-tiles-state", "No tile server is chosen")
            requested_urls(driver)
            go(driver, base + visit_path)
            wait_drawn(driver, "detail-map")
            driver.execute_script("return new Promise(r => setTimeout(r, 1000))")
            assert other_hosts(requested_urls(driver), base) == []
        finally:
            tiles.shutdown()
        violations = csp_violations(driver)
        assert not violations, violations
    finally:
        driver.quit()


def test_private_map_on_a_phone_in_japanese_dark(server):
    base = server["base"]
    driver = make_browser(width=390, height=844, network_log=True)
    try:
        set_up(driver, base)
        japanese_dark(driver)
        go(driver, base + "/visits")
        wait_drawn(driver, "visits-map")
        notice = driver.find_element(By.CSS_SELECTOR, "#visits-map .map-offline")
        assert "プライベートな地図" in notice.text
        assert other_hosts(requested_urls(driver), base) == []
        shot(driver, "private-maps-04-phone-ja-dark")
        go(driver, base + "/admin/map")
        wait_text(driver, "#map-tiles-learns", "タイルサーバーには")
        shot(driver, "private-maps-05-admin-phone-ja-dark")
    finally:
        driver.quit()
