// Face unlock and face sign-in (a challenge with head turns; the page names the endpoints) and face
// enrollment, all from the browser camera.
(() => {
  const strings = JSON.parse(document.getElementById("unlock-strings")?.textContent || "{}");
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  function setState(state, message) {
    const status = document.getElementById("face-status");
    if (!status) return;
    status.dataset.state = state;
    status.textContent = message ?? strings[state] ?? state;
    const box = document.getElementById("face-unlock");
    if (box) box.dataset.state = state;
  }

  async function startCamera(video) {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "user", width: { ideal: 640 }, height: { ideal: 480 } }, audio: false });
    const box = video.closest(".camera");
    if (box) box.hidden = false;
    video.srcObject = stream;
    await video.play();
    // Wait for real frames: the first ones from some cameras are black.
    for (let i = 0; i < 50 && video.videoWidth === 0; i++) await sleep(50);
    return stream;
  }

  function grab(video) {
    const width = Math.min(640, video.videoWidth || 640);
    const height = Math.round(width * (video.videoHeight || 480) / (video.videoWidth || 640));
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    canvas.getContext("2d").drawImage(video, 0, 0, width, height);
    return canvas.toDataURL("image/jpeg", 0.9);
  }

  async function api(path, body) {
    const response = await window.hibiFetch(path, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body ?? {}),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error?.message || response.statusText);
    return data;
  }

  // --- unlock -------------------------------------------------------------------------------
  const unlockBox = document.getElementById("face-unlock");
  if (unlockBox) {
    const video = document.getElementById("camera");
    const prompt = document.getElementById("prompt");
    const button = document.getElementById("face-start");
    let stream = null;
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        if (!stream) stream = await startCamera(video);
      } catch (error) {
        setState("failed", strings.cameraDenied);
        document.getElementById("password")?.focus();
        button.disabled = false;
        return;
      }
      try {
        // The server reveals one step at a time and judges each frame as it arrives, so frames go one by
        // one (the next only after the answer to the last) at about four a second, never in a batch.
        let answer = await api(unlockBox.dataset.challengeUrl);
        const id = answer.id;
        setState("scanning");
        // The instructions must be where the person looks: the camera's picture with its prompt and the
        // status line below it, all in view (a laptop's short screen had them below the fold).
        // The camera box is at most half the screen high, so with its top at the top the status fits below.
        video.closest(".camera")?.scrollIntoView({ block: "start" });
        while (!answer.done) {
          prompt.textContent = strings[answer.step] || answer.step;
          const started = performance.now();
          answer = await api(unlockBox.dataset.verifyUrl, { challengeId: id, frame: grab(video) });
          const spent = performance.now() - started;
          if (!answer.done && spent < 250) await sleep(250 - spent);
        }
        setState("success");
        prompt.textContent = strings.success;
        stream.getTracks().forEach((track) => track.stop());
        setTimeout(() => { window.location.href = unlockBox.dataset.next || "/diary"; }, 900);
      } catch (error) {
        setState("failed", error.message);
        prompt.textContent = strings.retry;
        button.textContent = strings.retry;
        button.disabled = false;
      }
    });
  }

  // --- enrollment ---------------------------------------------------------------------------
  const enrollBox = document.getElementById("enroll");
  if (enrollBox && document.getElementById("take-photo")) {
    const video = document.getElementById("camera");
    const take = document.getElementById("take-photo");
    const finish = document.getElementById("finish-enroll");
    const shots = document.getElementById("shots");
    const minimum = Number(enrollBox.dataset.minimum || 3);
    const accepted = [];
    startCamera(video).catch(() => {
      setState("failed", strings.cameraDenied);
      take.disabled = true;
    });
    take.addEventListener("click", async () => {
      take.disabled = true;
      setState("processing");
      const photo = grab(video);
      try {
        await api("/api/v1/diary/face/check", { photo });
        accepted.push(photo);
        const item = document.createElement("li");
        item.textContent = "✓ " + (strings.accepted || "%@").replace("%@", String(accepted.length));
        shots.appendChild(item);
        setState("ready", (strings.accepted || "%@").replace("%@", String(accepted.length)));
        finish.disabled = accepted.length < minimum;
      } catch (error) {
        setState("failed", error.message);
      }
      take.disabled = false;
    });
    finish.addEventListener("click", async () => {
      finish.disabled = true;
      setState("processing");
      try {
        await api("/api/v1/diary/face/enroll", { photos: accepted });
        setState("success", strings.done);
        setTimeout(() => { window.location.href = "/diary/settings"; }, 800);
      } catch (error) {
        setState("failed", error.message);
        finish.disabled = false;
      }
    });
  }
})();
