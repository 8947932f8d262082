// Diary pages: mood suggestion as soon as a photo is picked (app.js asks before deleting).
document.addEventListener("DOMContentLoaded", () => {
  // A new entry typed while the connection is gone is kept on this device (localStorage) until it can be sent:
  // the draft is restored into the form, and sent by itself when the browser is back online.
  const DRAFT = "hibi-diary-draft";
  const store = {
    get() { try { return JSON.parse(localStorage.getItem(DRAFT) || "null"); } catch (error) { return null; } },
    set(value) { try { localStorage.setItem(DRAFT, JSON.stringify(value)); } catch (error) { /* storage full or blocked */ } },
    clear() { try { localStorage.removeItem(DRAFT); } catch (error) { /* nothing kept */ } },
  };
  if (document.getElementById("entry") && new URLSearchParams(window.location.search).get("saved") === "1") store.clear();
  const entryForm = document.getElementById("entry-form");
  if (entryForm && entryForm.getAttribute("action") === "/diary/new") {
    const text = entryForm.querySelector("[name=text]");
    const tags = entryForm.querySelector("[name=tags]");
    const note = document.createElement("p");
    note.id = "draft-status";
    note.className = "notice info";
    note.setAttribute("role", "status");
    note.hidden = true;
    entryForm.prepend(note);
    const keep = () => store.set({ text: text?.value ?? "", tags: tags?.value ?? "", savedAt: Date.now() });
    const draft = store.get();
    if (draft && text && !text.value) {
      text.value = draft.text;
      if (tags && !tags.value) tags.value = draft.tags;
      note.textContent = entryForm.dataset.draftRestored || "Draft restored";
      note.hidden = false;
    }
    text?.addEventListener("input", keep);
    tags?.addEventListener("input", keep);
    entryForm.addEventListener("submit", (event) => {
      keep();
      if (navigator.onLine) return;
      event.preventDefault();
      note.textContent = entryForm.dataset.draftOffline || "Offline: kept on this device";
      note.hidden = false;
      window.addEventListener("online", () => entryForm.requestSubmit(), { once: true });
    });
  }

  // The diary's filters are folded on a phone; on a wider screen they are simply shown.
  const fold = document.getElementById("diary-filter-fold");
  if (fold && window.matchMedia("(min-width: 768px)").matches) fold.open = true;

  const photo = document.getElementById("photo");
  const note = document.getElementById("mood-suggestion");
  if (!photo || !note) return;
  // Any photos may be picked; the mood is suggested from the first one that shows a face, as the server will read it.
  photo.addEventListener("change", async () => {
    const files = Array.from(photo.files || []);
    document.querySelectorAll(".mood-option.suggested").forEach((el) => el.classList.remove("suggested"));
    if (files.length === 0) { note.hidden = true; return; }
    note.hidden = false;
    note.className = "notice info";
    note.textContent = "…";
    try {
      for (const file of files) {
        const data = await new Promise((resolve) => {
          const reader = new FileReader();
          reader.onload = () => resolve(reader.result);
          reader.readAsDataURL(file);
        });
        const response = await window.hibiFetch("/api/v1/diary/mood-estimate", {
          method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ photo: data }),
        });
        const body = await response.json();
        if (!response.ok) { note.className = "notice error"; note.textContent = `${file.name}: ${body.error.message}`; return; }
        if (!body.faceFound) continue;
        const option = document.getElementById("mood-" + body.suggestedMood);
        if (option) {
          // Only a guess of at least "leaning" is ticked for the person; an unsure one is shown, never chosen for them.
          if (body.preselect) option.checked = true;
          option.closest(".mood-option").classList.add("suggested");
          const emoji = option.nextElementSibling.textContent.trim().split(" ")[0];
          note.textContent = `${emoji} ${body.wording}`;
        }
        return;
      }
      note.textContent = note.dataset.noFace || "—";
    } catch (error) {
      note.className = "notice error";
      note.textContent = String(error);
    }
  });
});
