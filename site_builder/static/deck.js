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
  pdfSeparateFragments: false,   // print one page per slide, with every step shown
  plugins: [RevealNotes],
  // Space or Enter on a focused control (a self-check <summary>, a widget
  // button, a link) acts on that control and does not also change the slide.
  keyboardCondition: (event) => {
    const target = event.target;
    const onControl = target && target.closest && target.closest("summary, button, a, select");
    return !(onControl && (event.key === " " || event.key === "Enter"));
  },
});
