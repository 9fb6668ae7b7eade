// placeholder, replaced by the board view
export default function render(container, view, opts) {
  const pre = document.createElement("pre");
  pre.textContent = view.text;
  container.appendChild(pre);
}
