// Device- and driver-controlled text made safe for a terminal. A variable, a table cell, a log
// line, a backup, an error message or a device name may carry control characters that a terminal
// acts on: ESC starts CSI/OSC/DCS sequences (OSC 52 writes the clipboard, OSC 0 the window title,
// CSI 2J clears the screen, SGR 8 hides text), CR lets a line overwrite what came before, C1
// controls (U+0080–U+009F) are 8-bit forms of the same, and bidi overrides/isolates reorder what
// is shown. Each such character is shown instead as its code, `\u001b` — so no sequence can
// start, and the reader sees that the text held one. One pass over the text, one character at a
// time: linear, and no state across characters (the text may arrive in pieces).
//
// The escape `\uXXXX` is also a JSON string escape of the same character: escaping a JSON
// document's text leaves it valid and its values exact (JSON.stringify leaves C1, DEL and bidi
// controls raw), so the CLI's output boundary (terminalIo) may treat every line alike.

/**
 * C0 controls but tab and line feed, DEL, C1 controls, the Arabic letter mark, LRM/RLM, the line
 * and paragraph separators, the bidi embeddings/overrides (U+202A–U+202E) and isolates (U+2066–U+2069).
 */
const UNSAFE_KEEPING_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
/** The same, and line feed and tab too: for text that must stay on one line (a table cell, a name). */
const UNSAFE_ON_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
/** The output boundary: our own style sequences (format.ts, bold/dim/colours and their ends) kept, anything else unsafe escaped. */
const UNSAFE_BUT_OUR_STYLES = /\u001b\[(?:1|2|22|31|32|33|39)m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const codeOf = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Device or driver text for a terminal: controls, C1 and bidi characters shown as `\uXXXX`.
 * Line feeds and tabs stay unless `oneLine` (then they are shown as codes too).
 */
export function terminalText(text: string, options: { oneLine?: boolean } = {}): string {
  return text.replace(options.oneLine ? UNSAFE_ON_ONE_LINE : UNSAFE_KEEPING_LINES, codeOf);
}

/**
 * A whole line of the CLI's own output, as the last guard before the terminal: every control is
 * escaped as in terminalText, line feeds and tabs kept; with `ourStyles` (the output is styled,
 * styleFor) the exact style sequences the CLI itself writes pass. A JSON document passes with its
 * values exact.
 */
export function terminalOutput(text: string, ourStyles = false): string {
  if (!ourStyles) return text.replace(UNSAFE_KEEPING_LINES, codeOf);
  return text.replace(UNSAFE_BUT_OUR_STYLES, (m) => (m.length > 1 ? m : codeOf(m)));
}


