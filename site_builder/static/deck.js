// Starts reveal.js on a deck page: keyboard navigation, a hash URL per slide,
// progress bar, slide numbers, speaker notes (key S) and ?print-pdf.
/* global Reveal, RevealNotes */
Reveal.initialize({
  hash: true,
  history: false,
  progress: true,
  slideNumber: "c/t",
  controls: true,
  center: false,
  width: 1280,
  height: 720,
  margin: 0.03,
  transition: "none",
  pdfMaxPagesPerSlide: 1,
  plugins: [RevealNotes],
});
