// Diary pages: mood suggestion as soon as a photo is picked, confirmation before deleting.
document.addEventListener("DOMContentLoaded", () => {
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }

  const photo = document.getElementById("photo");
  const note = document.getElementById("mood-suggestion");
  if (!photo || !note) return;
  photo.addEventListener("change", async () => {
    const file = photo.files && photo.files[0];
    document.querySelectorAll(".mood-option.suggested").forEach((el) => el.classList.remove("suggested"));
    if (!file) { note.hidden = true; return; }
    note.hidden = false;
    note.textContent = "…";
    const data = await new Promise((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result);
      reader.readAsDataURL(file);
    });
    try {
      const response = await window.hibiFetch("/api/v1/diary/mood-estimate", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ photo: data }),
      });
      const body = await response.json();
      if (!response.ok) { note.className = "notice error"; note.textContent = body.error.message; return; }
      note.className = "notice info";
      if (!body.faceFound) { note.textContent = note.dataset.noFace || "—"; return; }
      const option = document.getElementById("mood-" + body.suggestedMood);
      if (option) {
        option.checked = true;
        option.closest(".mood-option").classList.add("suggested");
        const label = option.nextElementSibling.textContent;
        note.textContent = `${label} · ${Math.round(body.confidence * 100)}%`;
      }
    } catch (error) {
      note.className = "notice error";
      note.textContent = String(error);
    }
  });
});
