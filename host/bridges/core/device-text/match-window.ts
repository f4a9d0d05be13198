// What a driver's prompt pattern is tested on: at most the last WINDOW_CHARS characters of the
// output, from a line start when the output was cut. A prompt is the end of the last line, so
// a window finds what testing the whole output finds (an output shorter than the window is
// tested whole), and each test costs at most the window, not the output so far.

/** Characters one test of a driver's pattern sees at most. */
export const WINDOW_CHARS = 16 * 1024;

export interface Window {
  text: string;
  /** The window starts at a line start (the output's start, or just after a line feed). */
  atLineStart: boolean;
}

/**
 * The window after `more` text follows `previous` (the last window, or an empty one at a line
 * start for a new output).
 */
export function nextWindow(previous: Window, more: string): Window {
  let text = previous.text + more;
  let atLineStart = previous.atLineStart;
  if (text.length > WINDOW_CHARS) {
    text = text.slice(text.length - WINDOW_CHARS);
    atLineStart = false;
  }
  if (!atLineStart) {
    const feed = text.indexOf('\n');
    if (feed >= 0 && feed + 1 < text.length) {
      text = text.slice(feed + 1);
      atLineStart = true;
    }
  }
  return { text, atLineStart };
}

export const EMPTY_WINDOW: Window = { text: '', atLineStart: true };
