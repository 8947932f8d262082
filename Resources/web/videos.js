// Video library: upload with a progress bar, and the player (resume, progress saving, shortcuts).
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  setUpUpload();
  setUpPlayer();
});

function setUpUpload() {
  const form = document.getElementById("upload-form");
  if (!form) return;
  const input = document.getElementById("upload-file");
  const button = document.getElementById("upload-button");
  const bar = document.getElementById("upload-progress");
  const status = document.getElementById("upload-status");
  const say = (text, error = false) => {
    status.textContent = text;
    status.classList.toggle("error-text", error);
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const file = input.files[0];
    if (!file) return;
    if (file.size > Number(form.dataset.maxBytes)) {
      say(form.dataset.msgTooLarge, true);
      return;
    }
    const ui = { bar, button, say, uploading: form.dataset.msgUploading, working: form.dataset.msgProcessing, aborted: form.dataset.msgAborted };
    window.hibiSendFile("/api/v1/videos?filename=" + encodeURIComponent(file.name), file, file.type || "application/octet-stream", ui, (xhr) => {
      if (xhr.status === 201 && xhr.response && xhr.response.id) {
        bar.value = 100;
        say(form.dataset.msgDone);
        window.location.href = "/videos/" + xhr.response.id;
      } else {
        bar.hidden = true;
        const message = xhr.response && xhr.response.error ? xhr.response.error.message : `HTTP ${xhr.status}`;
        say(`${form.dataset.msgFailed} ${message}`, true);
      }
    });
  });
}

function setUpPlayer() {
  const video = document.getElementById("player");
  if (!video) return;
  const id = video.dataset.videoId;
  const toggle = document.getElementById("play-toggle");
  const status = document.getElementById("player-status");
  let started = false;
  let lastSaved = -1;
  let lastSaveAt = 0;
  let queue = Promise.resolve();

  const save = (ended = false, keepalive = false) => {
    if (!started) return Promise.resolve();
    const position = ended ? video.duration || video.currentTime : video.currentTime;
    if (!Number.isFinite(position)) return Promise.resolve();
    lastSaved = position;
    lastSaveAt = Date.now();
    // fetch with keepalive survives the page going away and, unlike sendBeacon, can carry the CSRF header.
    const send = () => window.hibiFetch(`/api/v1/videos/${id}/progress`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ positionSeconds: position, ended }),
      keepalive,
    }).catch(() => {});
    // Saves go one after another so the last position written is the last one reported.
    queue = keepalive ? send() : queue.then(send);
    return queue;
  };

  // "Play in order" opens each video with autoplay=1: it starts from the beginning and plays on its own
  // (before, each next video opened paused at its old position). If the browser refuses sound without a
  // gesture, it plays muted rather than not at all.
  const autoplay = new URLSearchParams(window.location.search).get("autoplay") === "1";
  video.addEventListener("loadedmetadata", () => {
    const resume = Number(video.dataset.resume);
    if (!autoplay && resume > 0 && resume < video.duration) video.currentTime = resume;
    if (autoplay) {
      video.currentTime = 0;
      if (status) status.textContent = "";
      video.play().catch(() => { video.muted = true; return video.play(); }).catch(() => {});
    }
  }, { once: true });

  video.addEventListener("play", () => {
    toggle.textContent = toggle.dataset.pause;
    if (!started) {
      started = true;
      window.hibiFetch(`/api/v1/videos/${id}/plays`, { method: "POST" }).catch(() => {});
    }
  });
  video.addEventListener("pause", () => {
    toggle.textContent = toggle.dataset.play;
    if (!video.ended) save();
  });
  video.addEventListener("seeked", () => {
    if (started && video.paused) save();
  });
  // While playing, at most one save every 10 seconds.
  video.addEventListener("timeupdate", () => {
    if (!video.paused && Date.now() - lastSaveAt > 10000 && Math.abs(video.currentTime - lastSaved) >= 1) save();
  });
  video.addEventListener("ended", () => {
    save(true).then(() => {
      if (video.dataset.next) window.location.href = video.dataset.next + "&autoplay=1";
    });
  });
  window.addEventListener("pagehide", () => save(false, true));
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") save(false, true);
  });

  toggle.addEventListener("click", () => (video.paused ? video.play() : video.pause()));
  document.getElementById("restart").addEventListener("click", () => {
    video.currentTime = 0;
    if (status) status.textContent = "";
    video.play();
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT", "BUTTON"].includes(target.tagName))) return;
    const seek = (delta) => {
      video.currentTime = Math.max(0, Math.min(video.duration || Infinity, video.currentTime + delta));
    };
    switch (event.key) {
      case " ": case "k": case "K": video.paused ? video.play() : video.pause(); break;
      case "ArrowLeft": seek(-5); break;
      case "ArrowRight": seek(5); break;
      case "j": case "J": seek(-10); break;
      case "l": case "L": seek(10); break;
      case "ArrowUp": video.volume = Math.min(1, video.volume + 0.1); break;
      case "ArrowDown": video.volume = Math.max(0, video.volume - 0.1); break;
      case "0": case "Home": video.currentTime = 0; break;
      case "m": case "M": video.muted = !video.muted; break;
      case "c": case "C": {
        const track = video.textTracks[0];
        if (track) track.mode = track.mode === "showing" ? "hidden" : "showing";
        break;
      }
      case "f": case "F":
        if (document.fullscreenElement) document.exitFullscreen();
        else video.requestFullscreen?.();
        break;
      default: return;
    }
    event.preventDefault();
  });
}
