"""Video library as a person uses it: upload with progress, play, seek, reload and resume, playlists."""
import json
import pathlib
import socket
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import shot
from test_accounts import PASSWORD, fill, settle, submit, wait_text


def set_up(browser, base):
    browser.get(base + "/setup")
    fill(browser, username="aiko", display_name="Aiko", password=PASSWORD, password_confirm=PASSWORD)
    submit(browser, "setup-form")
    wait_text(browser, "h1", "Hello, Aiko")


def api(browser, method, path, body=None):
    """Calls the JSON API from the page, with the session cookie and CSRF header like the page's own scripts."""
    return browser.execute_async_script("""
        const [method, path, body, done] = arguments;
        window.hibiFetch(path, {method, headers: body ? {"Content-Type": "application/json"} : {}, body: body || undefined})
          .then(r => r.text()).then(done, e => done(String(e)));
    """, method, path, json.dumps(body) if body is not None else None)


def player_state(browser):
    return browser.execute_script(
        "const v = document.getElementById('player'); return v ? {t: v.currentTime, paused: v.paused, ready: v.readyState, d: v.duration} : null;")


def test_upload_play_seek_resume_playlist(server, browser, clip):
    base = server["base"]
    set_up(browser, base)
    browser.get(base + "/videos")
    wait_text(browser, "h1", "Videos")
    shot(browser, "videos-01-empty-library")

    browser.find_element(By.ID, "upload-file").send_keys(str(clip))
    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.ID, "upload-button").click()
    settle(browser, old)
    WebDriverWait(browser, 30).until(lambda d: "/videos/" in d.current_url and d.find_elements(By.ID, "player"))
    video_id = browser.current_url.rstrip("/").split("/")[-1]
    wait_text(browser, "#video-title", "Garden walk")
    assert "1:30" in browser.find_element(By.ID, "video-length").text

    # Play with the page's own button, then seek to 40 s (44% of 90 s) and pause: the page saves the position.
    browser.find_element(By.ID, "play-toggle").click()
    WebDriverWait(browser, 20).until(lambda d: (player_state(d) or {}).get("t", 0) > 0.5)
    shot(browser, "videos-02-playing")
    browser.execute_script("document.getElementById('player').currentTime = 40;")
    WebDriverWait(browser, 20).until(lambda d: (player_state(d) or {}).get("t", 0) >= 40)
    browser.find_element(By.ID, "play-toggle").click()
    WebDriverWait(browser, 10).until(lambda d: player_state(d)["paused"])
    WebDriverWait(browser, 10).until(lambda d: json.loads(api(d, "GET", f"/api/v1/videos/{video_id}"))["positionSeconds"] >= 40)
    saved = json.loads(api(browser, "GET", f"/api/v1/videos/{video_id}"))
    assert saved["playCount"] == 1
    assert 40 <= saved["resumeAtSeconds"] < 45

    # Keyboard: "l" jumps 10 s forward.
    before = player_state(browser)["t"]
    browser.find_element(By.TAG_NAME, "body").send_keys("l")
    WebDriverWait(browser, 10).until(lambda d: player_state(d)["t"] >= before + 9)
    browser.find_element(By.TAG_NAME, "body").send_keys("j")
    WebDriverWait(browser, 10).until(lambda d: player_state(d)["t"] < before + 2)

    # Reload: the player resumes where it stopped.
    browser.refresh()
    WebDriverWait(browser, 20).until(lambda d: (player_state(d) or {}).get("ready", 0) >= 1)
    WebDriverWait(browser, 10).until(lambda d: 39 <= player_state(d)["t"] < 55)
    wait_text(browser, "#player-status", "Resuming at 0:")
    shot(browser, "videos-03-resumed")

    # The library shows it under "Continue watching".
    browser.get(base + "/videos")
    wait_text(browser, "#continue-watching", "Garden walk")
    shot(browser, "videos-04-library")

    # A playlist, and the video added to it from its page.
    browser.get(base + "/videos/playlists")
    fill(browser, name="Evening")
    submit(browser, "new-playlist")
    wait_text(browser, "#playlist-title", "Evening")
    browser.get(f"{base}/videos/{video_id}")
    Select(browser.find_element(By.ID, "playlist-select")).select_by_visible_text("Evening")
    submit(browser, "add-to-playlist")
    wait_text(browser, ".notice.success", "Added to the playlist")
    wait_text(browser, "#member-of", "Evening")
    browser.find_element(By.LINK_TEXT, "Evening").click()
    wait_text(browser, "#playlist-items", "Garden walk")
    shot(browser, "videos-05-playlist")
    browser.find_element(By.ID, "play-all").click()
    WebDriverWait(browser, 10).until(lambda d: "playlist=" in d.current_url)
    wait_text(browser, "#playlist-next", "Last video of")

    browser.get(base + "/videos/history")
    wait_text(browser, "#history", "Garden walk")
    shot(browser, "videos-06-history")


def test_phone_layout_and_interrupted_upload(server, phone, clip):
    base = server["base"]
    set_up(phone, base)
    phone.get(base + "/videos")
    wait_text(phone, "h1", "Videos")
    shot(phone, "videos-07-phone-library")

    # A real interrupted upload: announce 5 MB, send 1 MB, hang up.
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in phone.get_cookies())
    csrf = phone.find_element(By.CSS_SELECTOR, 'meta[name="csrf-token"]').get_attribute("content")
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall((f"POST /api/v1/videos?filename=cut.mp4 HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookies}\r\n"
                   f"X-CSRF-Token: {csrf}\r\nContent-Type: video/mp4\r\nContent-Length: 5000000\r\n\r\n").encode())
        s.sendall(clip.read_bytes()[:1_000_000])
        # Hang up only once the server is writing the upload (its temporary file exists), not after a guess.
        tmp = pathlib.Path(server["data"]) / "videos" / "tmp"
        deadline = time.time() + 10
        while time.time() < deadline and not (tmp.is_dir() and any(tmp.iterdir())):
            time.sleep(0.05)
    deadline = time.time() + 10
    while time.time() < deadline and any(tmp.iterdir()):
        time.sleep(0.2)
    assert not any(tmp.iterdir()), "the interrupted upload left a temporary file"
    assert json.loads(api(phone, "GET", "/api/v1/videos")) == []

    # Then a real upload from the phone works and the player fits the screen.
    phone.find_element(By.ID, "upload-file").send_keys(str(clip))
    old = phone.find_element(By.TAG_NAME, "html")
    phone.find_element(By.ID, "upload-button").click()
    settle(phone, old)
    WebDriverWait(phone, 30).until(lambda d: d.find_elements(By.ID, "player"))
    width, viewport, page = phone.execute_script(
        "return [document.getElementById('player').getBoundingClientRect().width, window.innerWidth,"
        " document.documentElement.scrollWidth]")
    assert width <= viewport and page <= viewport, "the player page must not scroll sideways on a phone"
    shot(phone, "videos-08-phone-player")
