;;; package_drive.el --- Emacs in batch mode, set up by editors/emacs/README.md (loaded before this file), using
;;; snippets-lsp.el's commands and accepting completions in a Markdown buffer.  -*- lexical-binding: t -*-
;;
;; Environment: SNIPPETS_TEST_CLIENT (eglot or lsp-mode), SNIPPETS_TEST_FILE (a .md note to open),
;; SNIPPETS_TEST_LIBRARY (the library folder), SNIPPETS_TEST_RESULT (where the JSON observations go: rewritten after
;; every stage, so a hang still tells where it hung).  Every wait is bounded; the harness kills a hung Emacs.

(require 'json)
(require 'cl-lib)
(load (expand-file-name "harness.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defvar snippets-test-library (getenv "SNIPPETS_TEST_LIBRARY"))

(defvar snippets-test-messages nil "What the echo area showed, last first.")
(advice-add 'message :before
            (lambda (format-string &rest args)
              (when format-string (push (apply #'format-message format-string args) snippets-test-messages))))

(defun snippets-test-text (&optional buffer)
  (with-current-buffer (or buffer (current-buffer)) (buffer-substring-no-properties (point-min) (point-max))))

(defun snippets-test-file (name)
  (let ((path (expand-file-name name snippets-test-library)))
    (when (file-exists-p path)
      (with-temp-buffer (insert-file-contents path) (buffer-string)))))

(defun snippets-test-ask (question)
  "Asks QUESTION with `snippets-lsp-ask' and waits for the answer buffer."
  (setq snippets-lsp-last-result nil)
  (snippets-lsp-ask question)
  (unless (snippets-test-wait (lambda () snippets-lsp-last-result) 20)
    (error "no answer came for %S" question))
  (get-buffer "*snippets-ask*"))

(defun snippets-test-accept (prefix)
  "Types PREFIX, waits for company's menu and takes its first entry with RET (`company-complete-selection')."
  (snippets-test-type-keys prefix)
  (unless (snippets-test-wait (lambda () (bound-and-true-p company-candidates)) 10)
    (error "no completion menu popped up after typing %S" prefix))
  (company-complete-selection)
  (when (bound-and-true-p yas-minor-mode) (ignore-errors (yas-exit-all-snippets))))

(defun snippets-test-offered (prefix)
  "Whether completing PREFIX, typed on a new line at the end of the buffer, offers PREFIX's snippet.
Each try is on a line of its own, as a person trying again would type: lsp-mode reuses its last list for a
completion that starts where the last one did."
  (goto-char (point-max))
  (insert "\n")
  (let (found)
    (snippets-test-type-keys prefix)
    (ignore-errors (company-manual-begin))
    (snippets-test-wait (lambda () (bound-and-true-p company-candidates)) 3)
    (setq found (cl-some (lambda (c) (string-prefix-p prefix c)) (bound-and-true-p company-candidates)))
    (ignore-errors (company-abort))
    found))

(condition-case error
    (progn
      (snippets-test-stage "open")
      (transient-mark-mode 1)
      (find-file (getenv "SNIPPETS_TEST_FILE"))
      (snippets-test-note 'major-mode (symbol-name major-mode))
      ;; eglot-ensure and lsp-deferred start the server from the command loop, which batch mode does not run.
      (run-hooks 'post-command-hook)
      (mapc #'timer-event-handler (copy-sequence timer-idle-list))
      (snippets-test-stage "connect")
      (unless (snippets-test-wait #'snippets-test-connected 30)
        (error "the client did not connect"))
      (unless (snippets-test-wait #'snippets-lsp--connection 10)
        (error "snippets-lsp.el does not find the connection"))
      (snippets-test-note 'connection (symbol-name (car (snippets-lsp--connection))))
      (let ((note (current-buffer)))

        ;; Accepting a one-line and a multi-line snippet in markdown-mode (lsp-mode used to hang here).
        (snippets-test-stage "accept-one-line")
        ;; At the end of the buffer, on a last line without a newline: where lsp-mode's re-indenting loop never
        ;; ended (forward-line keeps "moving" over that last line while markdown-indent-line moves back).
        (erase-buffer)
        (insert "Thanks for the call.\n")
        (snippets-test-accept "sig")
        (snippets-test-note 'one-line (snippets-test-text))
        (snippets-test-stage "accept-multi-line")
        (erase-buffer)
        (insert "Here is the invoice.\n\nThanks")
        (goto-char (point-min))
        (forward-line 1)
        (snippets-test-accept "invf")
        (snippets-test-note 'multi-line (snippets-test-text))

        ;; Ask with the question given, insert the cited snippet from the answer buffer.
        (snippets-test-stage "ask")
        (erase-buffer)
        (insert "Dear client,\n\nBest")
        (goto-char (point-min))
        (forward-line 1)
        (let ((answer (snippets-test-ask "how do I nudge a client about an overdue invoice")))
          (snippets-test-note 'answer-buffer (snippets-test-text answer))
          (snippets-test-note 'answer-window (if (get-buffer-window answer) t :json-false))
          (with-current-buffer answer
            (let ((titles nil))
              (goto-char (point-min))
              (while (forward-button 1 nil nil t)
                (push (button-label (button-at (point))) titles))
              (snippets-test-note 'buttons (vconcat (reverse titles))))
            ;; Point starts on the first button: the cited title in the answer.
            (goto-char (point-min))
            (forward-button 1)
            (snippets-test-note 'first-button (button-label (button-at (point))))
            (snippets-test-stage "open-definition")
            (let ((item (snippets-lsp--item-at)))
              (snippets-lsp-open-definition item)
              (snippets-test-note 'definition (list (cons 'file (file-name-nondirectory (or buffer-file-name "")))
                                                   (cons 'line (buffer-substring-no-properties
                                                                (line-beginning-position) (line-end-position)))))))
          (snippets-test-stage "insert")
          (delete-other-windows)
          (switch-to-buffer answer)
          (goto-char (point-min))
          (forward-button 1)
          ;; RET on the button.
          (push-button)
          (snippets-test-note 'inserted-into (buffer-name (current-buffer)))
          (when (bound-and-true-p yas-minor-mode) (ignore-errors (yas-exit-all-snippets)))
          (snippets-test-note 'inserted (snippets-test-text note))
          (snippets-test-note 'learned (or (snippets-test-wait (lambda () (snippets-test-file ".snippets-learned.json")) 10)
                                           :json-false))
          ;; It said what it learned and how to take it back; M-x snippets-lsp-forget-last does.
          (snippets-test-stage "forget-last")
          (unless (snippets-test-wait (lambda () snippets-lsp-last-lesson) 10)
            (error "no lesson was kept for undo"))
          (snippets-test-note 'learned-message (or (cl-find-if (lambda (m) (string-match-p "learned from your choice" m))
                                                               snippets-test-messages)
                                                   :json-false))
          (call-interactively #'snippets-lsp-forget-last)
          (snippets-test-note 'forget-message (car snippets-test-messages))
          (snippets-test-note 'learned-after-forget (or (snippets-test-file ".snippets-learned.json") :json-false)))

        ;; Without yasnippet: plain text, its later lines given the line's indentation.
        (snippets-test-stage "insert-plain")
        (switch-to-buffer note)
        (yas-minor-mode -1)
        (erase-buffer)
        (insert "- Dear client,\n  \n- Best")
        (goto-char (point-min))
        (forward-line 1)
        (end-of-line)
        (let ((answer (snippets-test-ask "remind a client about an overdue invoice")))
          (switch-to-buffer answer)
          (goto-char (point-min))
          (forward-button 1)
          (push-button))
        (snippets-test-note 'inserted-plain (snippets-test-text note))
        (yas-minor-mode 1)

        ;; Save a region: prompted for the trigger and the title, the title's default shown.
        (snippets-test-stage "save-region")
        (set-buffer note)
        (switch-to-buffer note)
        (erase-buffer)
        (insert "Kind regards,\nAna from accounts")
        (push-mark (point-min) t t)
        (goto-char (point-max))
        (let ((prompts nil))
          (cl-letf (((symbol-function 'read-string)
                     (lambda (prompt &optional _initial _history default &rest _)
                       (push prompt prompts)
                       (if (string-prefix-p "Trigger" prompt) "regards" (or default "")))))
            (call-interactively #'snippets-lsp-save-region))
          (snippets-test-note 'save-prompts (vconcat (reverse prompts))))
        (snippets-test-note 'saved (or (snippets-test-file "saved.code-snippets") :json-false))
        (deactivate-mark)

        ;; A question nothing fits: the answer buffer offers to save a snippet for it.
        (snippets-test-stage "declined-ask")
        (erase-buffer)
        (insert "Notes\n")
        (let ((answer (snippets-test-ask "how do I water the office cactus")))
          (snippets-test-note 'declined-buffer (snippets-test-text answer))
          (snippets-test-note 'declined-status (snippets-lsp--get snippets-lsp-last-result "status"))
          (switch-to-buffer answer)
          (goto-char (point-min))
          (unless (search-forward "Save a snippet for this question" nil t)
            (error "the declined ask offers no save button"))
          (backward-char 2)
          (cl-letf (((symbol-function 'read-string) (lambda (&rest _) "cactus")))
            (push-button)))
        (snippets-test-note 'saved-question (or (snippets-test-file "saved.code-snippets") :json-false))

        ;; An edit to the library counts without reconnecting.
        (snippets-test-stage "library-edit")
        (switch-to-buffer note)
        (erase-buffer)
        (with-temp-file (expand-file-name "more.code-snippets" snippets-test-library)
          (insert "{\"Zebra crossing\": {\"prefix\": \"zebracross\", \"body\": \"Mind the zebra crossing.\"}}"))
        (snippets-test-note 'edit-seen
                            (if (snippets-test-wait (lambda () (snippets-test-offered "zebrac")) 20) t :json-false)))
      (snippets-test-stage "done")
      (snippets-test-finish t))
  (error (snippets-test-finish nil error)))
