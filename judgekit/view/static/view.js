// Keyboard-first labelling: a key with a button of its own presses that button (the form
// then posts, as a click would); n puts the cursor in the note, Enter or Escape leaves it;
// ? shows the help. Nothing here reads or writes run text: the page is rendered by the server.
document.addEventListener("keydown", (event) => {
  const form = document.getElementById("keys");
  const help = document.getElementById("help");
  const note = document.getElementById("note");
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (document.activeElement === note) {
    if (event.key === "Enter" || event.key === "Escape") {
      event.preventDefault();
      note.blur();
    }
    return;
  }
  if (document.activeElement && ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName)) return;
  if (event.key === "?" && help) { help.hidden = !help.hidden; return; }
  if (event.key === "n" && note) { event.preventDefault(); note.focus(); return; }
  const button = document.querySelector(`form.keys button[data-keys~="${CSS.escape(event.key)}"]`);
  if (button) { event.preventDefault(); button.click(); }
});
