// The offline page: mentions a diary draft kept on this device, and reloads itself when the connection returns.
document.addEventListener("DOMContentLoaded", () => {
  try {
    if (localStorage.getItem("hibi-diary-draft")) document.getElementById("offline-draft").hidden = false;
  } catch (error) { /* storage blocked: nothing to say */ }
  window.addEventListener("online", () => window.location.reload());
});
