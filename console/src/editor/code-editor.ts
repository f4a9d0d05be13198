// The driver editor's CodeMirror 6 view, loaded on demand (its own chunk: the other pages never
// fetch it). JavaScript highlighting, bracket matching, undo history, and completion of `D.`
// members from the project's declarations of D (types/driver.d.ts, read at build time). Tab
// moves the focus on, as everywhere else on the page; Enter indents; Ctrl/Cmd-Enter runs.
import { EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { javascript, javascriptLanguage } from '@codemirror/lang-javascript';
import members from 'driverbox:d-members';

export interface MountedEditor {
  code(): string;
  focus(): void;
  destroy(): void;
}

export interface EditorOptions {
  doc: string;
  /** The accessible name of the code area. */
  label: string;
  /** Ids of elements that describe it (the keyboard hint). */
  describedBy?: string;
  onChange(code: string): void;
  onRun(): void;
}

/** Completes `D.`, `D.device.`, `D.device.http.`… with the members declared for that path. */
export function completeD(context: CompletionContext): CompletionResult | null {
  const before = context.matchBefore(/\bD(?:\.[\w$]+)*\.[\w$]*$/);
  if (!before) return null;
  const parts = before.text.split('.');
  const word = parts.pop() ?? '';
  const list = members[parts.join('.')];
  if (!list) return null;
  return {
    from: before.to - word.length,
    options: list.map((m) => ({ label: m.label, type: m.type, detail: m.detail, info: m.info || undefined })),
    validFor: /^[\w$]*$/,
  };
}

const theme = EditorView.theme({
  '&': { backgroundColor: 'var(--bg)', color: 'var(--text)', border: '1px solid var(--border)', borderRadius: '6px', fontSize: '0.9rem' },
  '&.cm-focused': { outline: '3px solid var(--focus)', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', minHeight: '18rem', maxHeight: '70vh', overflow: 'auto' },
  '.cm-gutters': { backgroundColor: 'var(--surface)', color: 'var(--text-muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'var(--selected)' },
  '.cm-content': { caretColor: 'var(--text)' },
  '.cm-tooltip': { backgroundColor: 'var(--surface)', color: 'var(--text)', border: '1px solid var(--border)' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: 'var(--accent)', color: 'var(--accent-text)' },
  '.cm-completionInfo': { maxWidth: '24rem', whiteSpace: 'pre-wrap' },
});

export function mountEditor(parent: HTMLElement, options: EditorOptions): MountedEditor {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        javascript(),
        javascriptLanguage.data.of({ autocomplete: completeD }),
        autocompletion({ activateOnTyping: true }),
        keymap.of([{ key: 'Mod-Enter', run: () => (options.onRun(), true) }, ...closeBracketsKeymap, ...completionKeymap, ...historyKeymap, ...defaultKeymap]),
        EditorView.contentAttributes.of({ 'aria-label': options.label, ...(options.describedBy ? { 'aria-describedby': options.describedBy } : {}) }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange(update.state.doc.toString());
        }),
        theme,
        // CodeMirror adds style elements: the page's policy lets those with its answer's nonce in.
        EditorView.cspNonce.of(document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? ''),
      ],
    }),
  });
  return { code: () => view.state.doc.toString(), focus: () => view.focus(), destroy: () => view.destroy() };
}
