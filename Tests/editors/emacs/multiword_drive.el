;;; multiword_drive.el --- Emacs in batch mode, set up by editors/emacs/README.md (loaded before this file): a
;;; trigger of several words and one offered inside a word, typed key by key and taken from company's menu.
;;; -*- lexical-binding: t -*-
;;
;; Environment: SNIPPETS_TEST_CLIENT (eglot or lsp-mode), SNIPPETS_TEST_FILE (a .txt note to open),
;; SNIPPETS_TEST_RESULT (where the JSON observations go).  Every wait is bounded.

(load (expand-file-name "harness.el" (file-name-directory load-file-name)) nil t)

(defun snippets-test-complete (name text label expected)
  "Types TEXT on an empty line, waits for company's menu, notes it, takes LABEL from it, and notes the line once it
holds EXPECTED (or after a bound)."
  (snippets-test-stage name)
  (erase-buffer)
  (snippets-test-type-keys text)
  (snippets-test-wait (lambda () (member label (bound-and-true-p company-candidates))) 10)
  (snippets-test-note (intern (concat name "-menu")) (vconcat (bound-and-true-p company-candidates)))
  (let ((index (cl-position label company-candidates :test #'equal)))
    (unless index (error "%s is not in the menu: %S" label company-candidates))
    (company-set-selection index)
    (company-complete-selection))
  (snippets-test-wait (lambda () (string-match-p (regexp-quote expected) (buffer-string))) 10)
  (snippets-test-note (intern name) (buffer-substring-no-properties (point-min) (point-max)))
  (when (bound-and-true-p yas-minor-mode) (ignore-errors (yas-exit-all-snippets))))

(condition-case error
    (progn
      (snippets-test-stage "open")
      (find-file (getenv "SNIPPETS_TEST_FILE"))
      ;; eglot-ensure and lsp-deferred start the server from the command loop, which batch mode does not run.
      (run-hooks 'post-command-hook)
      (mapc #'timer-event-handler (copy-sequence timer-idle-list))
      (snippets-test-stage "connect")
      (unless (snippets-test-wait #'snippets-test-connected 30)
        (error "the client did not connect"))
      ;; The first completion turns company on (lsp-mode) and waits for the library.
      (snippets-test-stage "loaded")
      (snippets-test-type-keys "els")
      (snippets-test-wait (lambda () (bound-and-true-p company-candidates)) 15)
      (when (bound-and-true-p company-candidates) (company-abort))
      (snippets-test-complete "several-words" "x if els" "if else" "x if cond else")
      ;; eglot 1.9 filters every item by the whole symbol before point and takes a label to start with it, which a
      ;; trigger inside a word ("sr" of "xsr") does not: only lsp-mode offers it.
      (unless (equal snippets-test-client "eglot")
        (snippets-test-complete "inside-a-word" "y xsr" "sr" "y x^2"))
      (snippets-test-finish t))
  (error (snippets-test-finish nil error)))
