;;; snippets-lsp.el --- Ask, save to and check your snippet library (snippets-lsp over eglot or lsp-mode)  -*- lexical-binding: t -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: convenience, abbrev, tools

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Client glue for the snippets-lsp language server; every answer comes from the server.  Works over whichever of
;; eglot or lsp-mode serves the buffer (neither is required):
;;
;; - `snippets-lsp-ask': asks a question (default: the active region or the `??' line) and shows the answer in
;;   the *snippets-ask* buffer: the answer with its quotes, each cited snippet and each snippet it looked at as a
;;   button (RET inserts it where you asked, through yasnippet when `yas-minor-mode' is on; `o' opens its
;;   definition), and "Save a snippet for this question" when nothing fits.
;; - `snippets-lsp-save-region': adds the region to the library, prompting for its trigger and title.
;; - `snippets-lsp-doctor': the server's `doctor' report, for the settings this package sends.
;; - `snippets-lsp-forget-last': takes back what the last insert from an answer taught the server.
;; - `snippets-lsp-mode': completion keys for writing: in company's menu RET takes only an entry you chose (else it
;;   ends the line), and TAB after a whole trigger expands it, the yasnippet habit.
;;
;; Set-up (see editors/emacs/README.md): `snippets-lsp-eglot-contact' for `eglot-server-programs', or
;; `snippets-lsp-register-lsp-client' for lsp-mode, both reading `snippets-lsp-libraries'.

;;; Code:

(require 'cl-lib)
(require 'button)
(require 'json)
(require 'subr-x)
(require 'url-util)

;; Optional: eglot and jsonrpc.
(declare-function eglot-current-server "eglot" ())
(declare-function eglot--capabilities "eglot" (server))
(declare-function eglot--TextDocumentIdentifier "eglot" ())
(declare-function eglot--pos-to-lsp-position "eglot" (&optional pos))
(declare-function eglot--signal-textDocument/didChange "eglot" ())
(declare-function jsonrpc-request "jsonrpc" (connection method params &rest args))
(declare-function jsonrpc-async-request "jsonrpc" (connection method params &rest args))
;; Optional: lsp-mode.
(declare-function lsp-workspaces "lsp-mode" ())
(declare-function lsp-request "lsp-mode" (method params &rest args))
(declare-function lsp-request-async "lsp-mode" (method params callback &rest args))
(declare-function lsp--workspace-server-capabilities "lsp-mode" (workspace))
(declare-function lsp--text-document-identifier "lsp-mode" ())
(declare-function lsp--point-to-position "lsp-mode" (point))
(declare-function lsp--send-did-change "lsp-mode" ())
(declare-function lsp-register-client "lsp-mode" (client))
(declare-function make-lsp-client "lsp-mode" (&rest args))
(declare-function lsp-stdio-connection "lsp-mode" (command &optional test-command))
(defvar lsp--cur-workspace)
(defvar lsp-mode)
;; Optional: yasnippet.
(declare-function yas-expand-snippet "yasnippet" (snippet &optional start end expand-env))
(defvar yas-minor-mode)
(defvar yas-indent-line)
;; Optional: company.
(declare-function company-abort "company" ())
(declare-function company-complete-selection "company" ())
(declare-function company-finish "company" (result))
(declare-function company-manual-begin "company" ())
(declare-function company-explicit-action-p "company" ())
(defvar company-active-map)
(defvar company-candidates)
(defvar company-prefix)
(defvar company-selection-changed)
(defvar company-abort-on-unique-match)

(defgroup snippets-lsp nil
  "Your snippet library through the snippets-lsp language server."
  :group 'tools
  :prefix "snippets-lsp-")

(defcustom snippets-lsp-program "snippets-lsp"
  "The snippets-lsp program: a name on `exec-path' or a full path."
  :type 'string)

(defcustom snippets-lsp-libraries nil
  "Snippet files and folders the server reads (the `libraries' setting).
Each a path, or a plist such as (:path \"~/team\" :name \"team\" :readOnly t).
nil: the server's defaults (`snippets-lsp doctor' lists them)."
  :type '(repeat (choice string plist)))

(defcustom snippets-lsp-settings nil
  "Other server settings, as a plist.
For example (:maxCompletionItems 20 :askMarker \"??\")."
  :type 'plist)

(defcustom snippets-lsp-ask-marker "??"
  "What starts a question line (the server's `askMarker' setting)."
  :type 'string)

(defface snippets-lsp-citation '((t :inherit link))
  "A cited snippet in the answer.")

(defface snippets-lsp-reason '((t :inherit warning))
  "Why an ask did not answer.")

(defface snippets-lsp-hint '((t :inherit shadow))
  "The key hints in the answer buffer.")

;;;; Settings and set-up

(defun snippets-lsp-initialization-options ()
  "The settings sent at start.
They are `snippets-lsp-libraries' and `snippets-lsp-settings'."
  (append (when snippets-lsp-libraries
            (list :libraries (vconcat snippets-lsp-libraries)))
          snippets-lsp-settings))

;;;###autoload
(defun snippets-lsp-eglot-contact (&optional _interactive)
  "The server contact for `eglot-server-programs'."
  (list snippets-lsp-program "serve" :initializationOptions (snippets-lsp-initialization-options)))

;;;###autoload
(defun snippets-lsp-register-lsp-client ()
  "Registers snippets-lsp with lsp-mode.
It runs beside the buffer's other servers, in every mode."
  (lsp-register-client
   (make-lsp-client :new-connection (lsp-stdio-connection (lambda () (list snippets-lsp-program "serve")))
                    :activation-fn (lambda (&rest _) t) :add-on? t :server-id 'snippets-lsp
                    :initialization-options #'snippets-lsp-initialization-options)))

;;;; Completion keys for writing (company and yasnippet habits)

(defvar snippets-lsp-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "TAB") #'snippets-lsp-expand-or-tab)
    (define-key map [tab] #'snippets-lsp-expand-or-tab)
    map)
  "Keys of `snippets-lsp-mode' outside company's menu.")

(defvar snippets-lsp-company-keys
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'snippets-lsp-company-return)
    (define-key map [return] #'snippets-lsp-company-return)
    (define-key map (kbd "TAB") #'snippets-lsp-company-tab)
    (define-key map [tab] #'snippets-lsp-company-tab)
    map)
  "Keys of `snippets-lsp-mode' over company's own while its menu is open.
They are looked up before `company-active-map'.")

(defconst snippets-lsp--choosing-commands
  '(company-select-next company-select-previous company-select-next-or-abort company-select-previous-or-abort
    company-select-mouse company-search-candidates company-filter-candidates)
  "Commands by which a person chooses an entry of company's menu.")

;;;###autoload
(define-minor-mode snippets-lsp-mode
  "Completion keys for writing with snippets-lsp.
In company's menu, RET takes the entry only once you chose one (moved to
it, or asked for the menu yourself); otherwise it closes the menu and ends
the line, so an ordinary word at the end of a line stays that word.  A
whole trigger typed keeps the menu open, and TAB after it expands its
snippet, with or without the menu, as yasnippet's TAB does; elsewhere TAB
does what it did."
  :lighter nil :keymap snippets-lsp-mode-map
  (if snippets-lsp-mode
      (when (require 'company nil t)
        (setq-local company-active-map (make-composed-keymap snippets-lsp-company-keys
                                                             (default-value 'company-active-map)))
        (if (boundp 'company-abort-on-unique-match)
            (setq-local company-abort-on-unique-match nil)
          ;; company 0.9.13 (Debian 12's) closes the menu on a sole entry equal to what was typed, with no option.
          (advice-add 'company--unique-match-p :around #'snippets-lsp--keep-sole-entry)))
    (kill-local-variable 'company-active-map)))

(defun snippets-lsp--keep-sole-entry (unique-match-p &rest arguments)
  "Around company's UNIQUE-MATCH-P, called with its ARGUMENTS.
In `snippets-lsp-mode' a whole trigger typed keeps its menu open."
  (and (not snippets-lsp-mode) (apply unique-match-p arguments)))

(defun snippets-lsp--run-other-binding (default)
  "Runs what this command's keys (else DEFAULT) do without this mode.
Company's menu is closed by then, so its keys are not looked at either."
  (let* ((these (this-command-keys-vector))
         (keys (if (> (length these) 0) these default))
         (command (let ((snippets-lsp-mode nil)) (key-binding keys t))))
    (when (commandp command)
      (setq this-command command)
      (call-interactively command))))

(defun snippets-lsp-company-return ()
  "RET in company's menu: takes the entry you chose.
Otherwise it closes the menu and does what RET does: ends the line."
  (interactive)
  (if (or (company-explicit-action-p) (memq last-command snippets-lsp--choosing-commands))
      (company-complete-selection)
    (company-abort)
    (snippets-lsp--run-other-binding (kbd "RET"))))

(defun snippets-lsp--typed-entry ()
  "The menu's entry that is exactly what was typed (a whole trigger), or nil."
  (and company-prefix (cl-find company-prefix company-candidates :test #'string=)))

(defun snippets-lsp-company-tab ()
  "TAB in company's menu: expands the entry that is exactly what you typed.
Otherwise it does what TAB does in company's menu."
  (interactive)
  (let ((typed (snippets-lsp--typed-entry)))
    (if typed
        (company-finish typed)
      (let ((command (lookup-key (default-value 'company-active-map) (kbd "TAB"))))
        (when (commandp command) (call-interactively command))))))

(defun snippets-lsp-expand-or-tab ()
  "Expands the snippet whose trigger is the word before point.
Otherwise TAB does what it does without this mode.  It asks for completion
as `company-complete' does, so a trigger of any length works."
  (interactive)
  (unless (and (bound-and-true-p company-mode)
               (snippets-lsp--connection)
               (memq (char-syntax (or (char-before) ?\s)) '(?w ?_))
               (let ((inhibit-message t)) (ignore-errors (company-manual-begin)))
               (let ((typed (snippets-lsp--typed-entry)))
                 (if typed
                     (progn (company-finish typed) t)
                   (company-abort)
                   nil)))
    (snippets-lsp--run-other-binding (kbd "TAB"))))

;;;; The connection: eglot's server or lsp-mode's workspace in this buffer

(defun snippets-lsp--get (object key)
  "KEY (a string) of OBJECT, an eglot plist or an lsp-mode hash table."
  (cond ((hash-table-p object) (gethash key object))
        ((listp object) (plist-get object (intern (concat ":" key))))))

(defun snippets-lsp--ours-p (capabilities)
  (let ((experimental (snippets-lsp--get capabilities "experimental")))
    (and experimental (eq t (snippets-lsp--get experimental "snippetsAsk")))))

(defun snippets-lsp--connection ()
  "The snippets-lsp connection of this buffer, or nil.
That is (eglot . SERVER) or (lsp . WORKSPACE)."
  (or (when (and (fboundp 'eglot-current-server) (eglot-current-server))
        (let ((server (eglot-current-server)))
          (when (snippets-lsp--ours-p (eglot--capabilities server))
            (cons 'eglot server))))
      (when (and (bound-and-true-p lsp-mode) (fboundp 'lsp-workspaces))
        (let ((lsp--cur-workspace nil))
          (cl-loop for workspace in (lsp-workspaces)
                   when (snippets-lsp--ours-p (lsp--workspace-server-capabilities workspace))
                   return (cons 'lsp workspace))))))

(defun snippets-lsp--require-connection ()
  (or (snippets-lsp--connection)
      (user-error "snippets-lsp is not running in this buffer: start it with M-x eglot or M-x lsp (see editors/emacs/README.md)")))

(defun snippets-lsp--sync (connection)
  "Sends this buffer's pending changes over CONNECTION.
So the server sees what is on screen."
  (pcase (car connection)
    ('eglot (when (fboundp 'eglot--signal-textDocument/didChange) (eglot--signal-textDocument/didChange)))
    ('lsp (when (fboundp 'lsp--send-did-change)
            (let ((lsp--cur-workspace (cdr connection))) (ignore-errors (lsp--send-did-change)))))))

(defun snippets-lsp--document (connection)
  (pcase (car connection)
    ('eglot (eglot--TextDocumentIdentifier))
    ('lsp (lsp--text-document-identifier))))

(defun snippets-lsp--position (connection &optional point)
  (pcase (car connection)
    ('eglot (eglot--pos-to-lsp-position point))
    ('lsp (lsp--point-to-position (or point (point))))))

(defun snippets-lsp--error-message (error)
  (or (and error (snippets-lsp--get error "message")) (format "%S" error)))

(defun snippets-lsp--request (connection method params)
  "Sends METHOD with PARAMS over CONNECTION and waits for the result."
  (pcase (car connection)
    ('eglot (jsonrpc-request (cdr connection) (intern (concat ":" method)) params))
    ('lsp (let ((lsp--cur-workspace (cdr connection))) (lsp-request method params)))))

(defun snippets-lsp--request-async (connection method params callback errback)
  "Sends METHOD with PARAMS over CONNECTION without waiting.
Calls CALLBACK with the result or ERRBACK with a message."
  (pcase (car connection)
    ('eglot (jsonrpc-async-request (cdr connection) (intern (concat ":" method)) params
                                   :success-fn callback
                                   :error-fn (lambda (error) (funcall errback (snippets-lsp--error-message error)))
                                   :timeout-fn (lambda () (funcall errback "no reply in time"))
                                   :timeout 120))
    ('lsp (let ((lsp--cur-workspace (cdr connection)))
            (lsp-request-async method params callback :mode 'detached
                               :error-handler (lambda (error) (funcall errback (snippets-lsp--error-message error))))))))

(defun snippets-lsp--execute (connection command argument &optional callback)
  "Runs the server's COMMAND with ARGUMENT (a plist).
With CALLBACK, without waiting: CALLBACK gets the result, or (:error MESSAGE)."
  (let ((params (list :command command :arguments (vector argument))))
    (if callback
        (snippets-lsp--request-async connection "workspace/executeCommand" params callback
                                     (lambda (message) (funcall callback (list :error message))))
      (snippets-lsp--request connection "workspace/executeCommand" params))))

;;;; Positions and text

(defun snippets-lsp--utf16-to-index (string units)
  "The character index in STRING after UNITS UTF-16 code units."
  (let ((index 0) (count 0) (length (length string)))
    (while (and (< index length) (< count units))
      (setq count (+ count (if (> (aref string index) #xFFFF) 2 1)))
      (setq index (1+ index)))
    index))

(defun snippets-lsp--uri-to-path (uri)
  (if (string-prefix-p "file://" uri)
      (decode-coding-string (url-unhex-string (substring uri 7)) 'utf-8)
    uri))

(defun snippets-lsp--goto-position (position)
  "Moves to LSP POSITION (line, UTF-16 character) in this buffer."
  (goto-char (point-min))
  (forward-line (or (snippets-lsp--get position "line") 0))
  (let ((line (buffer-substring-no-properties (point) (line-end-position))))
    (forward-char (snippets-lsp--utf16-to-index line (or (snippets-lsp--get position "character") 0)))))

(defun snippets-lsp--file-line (location)
  (let* ((path (snippets-lsp--uri-to-path (snippets-lsp--get location "uri")))
         (start (snippets-lsp--get (snippets-lsp--get location "range") "start")))
    (format "%s:%d" (abbreviate-file-name path) (1+ (or (snippets-lsp--get start "line") 0)))))

(defun snippets-lsp--yasnippet (snippet)
  "SNIPPET (LSP snippet syntax) for yasnippet.
A backquote stays text there, never Lisp to run."
  (let ((backslashes 0) (parts nil))
    ;; Each backquote not already escaped (after an even number of backslashes) gets a backslash.
    (dolist (char (string-to-list snippet))
      (when (and (eq char ?`) (cl-evenp backslashes))
        (push ?\\ parts))
      (push char parts)
      (setq backslashes (if (eq char ?\\) (1+ backslashes) 0)))
    (apply #'string (nreverse parts))))

(defun snippets-lsp--default-question ()
  "The active region's text, else the question on a marker line, else nil.
A marker line starts with `snippets-lsp-ask-marker'."
  (cond ((use-region-p)
         (string-trim (buffer-substring-no-properties (region-beginning) (region-end))))
        (t (let ((line (string-trim (buffer-substring-no-properties (line-beginning-position) (line-end-position)))))
             (when (string-prefix-p snippets-lsp-ask-marker line)
               (let ((question (string-trim (substring line (length snippets-lsp-ask-marker)))))
                 (unless (string-empty-p question) question)))))))

;;;; Ask

(defvar snippets-lsp-ask-history nil "Questions asked with `snippets-lsp-ask'.")

(defvar snippets-lsp-last-result nil "The last `snippets/ask' result shown (for inspection and tests).")

(defvar-local snippets-lsp--origin nil
  "In the answer buffer: (CONNECTION MARKER QUESTION) of the ask.")

(defvar snippets-lsp-answer-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "o") #'snippets-lsp-open-definition)
    (define-key map (kbd "TAB") #'forward-button)
    (define-key map (kbd "<backtab>") #'backward-button)
    (define-key map (kbd "n") #'forward-button)
    (define-key map (kbd "p") #'backward-button)
    map)
  "Keys in the *snippets-ask* buffer; RET on a button inserts the snippet.")

(define-derived-mode snippets-lsp-answer-mode special-mode "Snippets-Ask"
  "The answer to a question asked with `snippets-lsp-ask'.
\\<snippets-lsp-answer-mode-map>RET on a snippet inserts it where you asked,
\\[snippets-lsp-open-definition] opens its definition,
\\[forward-button] moves to the next one, \\[quit-window] closes."
  (setq truncate-lines nil))

(define-button-type 'snippets-lsp-snippet
  'action #'snippets-lsp--insert-button
  'follow-link t
  'help-echo "RET: insert this snippet, o: open its definition")

(define-button-type 'snippets-lsp-save-question
  'action (lambda (_button) (snippets-lsp-save-question))
  'follow-link t
  'help-echo "RET: save an empty snippet described by this question, to fill in")

;;;###autoload
(defun snippets-lsp-ask (question)
  "Asks your snippet library QUESTION; the answer shows in *snippets-ask*.
Interactively, reads it in the minibuffer; the default is the active
region or the `??' line."
  (interactive
   (let ((default (snippets-lsp--default-question)))
     (list (read-string (if default (format "Ask your snippets (default %s): " default) "Ask your snippets: ")
                        nil 'snippets-lsp-ask-history default))))
  (when (or (null question) (string-empty-p (string-trim question)))
    (user-error "Ask what? Type a question"))
  (let* ((connection (snippets-lsp--require-connection))
         (marker (copy-marker (point) t))
         (params (list :question question
                       :textDocument (snippets-lsp--document connection)
                       :position (snippets-lsp--position connection))))
    (snippets-lsp--sync connection)
    (message "Asking your snippets…")
    (snippets-lsp--request-async
     connection "snippets/ask" params
     (lambda (result) (snippets-lsp--show result connection marker question))
     (lambda (message) (message "snippets-lsp: ask failed: %s" message)))))

(defun snippets-lsp--insert-snippet-button (item)
  (insert-text-button (snippets-lsp--get item "title")
                      'type 'snippets-lsp-snippet 'face 'snippets-lsp-citation 'snippets-lsp-item item))

(defun snippets-lsp--show (result connection marker question)
  "Shows RESULT of asking QUESTION in the *snippets-ask* buffer.
MARKER is where it was asked, CONNECTION the server's."
  (setq snippets-lsp-last-result result)
  (let* ((buffer (get-buffer-create "*snippets-ask*"))
         (answer (or (snippets-lsp--get result "answer") ""))
         (status (snippets-lsp--get result "status"))
         (reason (snippets-lsp--get result "reason"))
         (citations (append (snippets-lsp--get result "citations") nil))
         (candidates (append (snippets-lsp--get result "candidates") nil))
         (cited (mapcar (lambda (c) (snippets-lsp--get c "id")) citations)))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (snippets-lsp-answer-mode)
        (setq snippets-lsp--origin (list connection marker question))
        (insert (propertize (concat "Q: " question) 'face 'bold) "\n\n")
        (let ((start (point)))
          (insert answer)
          ;; Each quoted title in the answer is a button for its snippet.
          (dolist (citation citations)
            (let* ((range (snippets-lsp--get citation "answerRange"))
                   (from (snippets-lsp--utf16-to-index answer (snippets-lsp--get range "start")))
                   (to (snippets-lsp--utf16-to-index answer (snippets-lsp--get range "end"))))
              (when (< from to (1+ (length answer)))
                (make-text-button (+ start from) (+ start to)
                                  'type 'snippets-lsp-snippet 'face 'snippets-lsp-citation
                                  'snippets-lsp-item citation)))))
        (insert "\n")
        (when (and reason (not (equal status "answered")))
          (let ((message (snippets-lsp--get reason "message")))
            (unless (or (null message) (equal message answer))
              (insert (propertize message 'face 'snippets-lsp-reason) "\n"))))
        (when citations
          (insert "\nCited:\n")
          (dolist (citation citations)
            (insert "  ")
            (snippets-lsp--insert-snippet-button citation)
            (insert "  " (snippets-lsp--file-line (snippets-lsp--get citation "location")) "\n")))
        (when candidates
          (insert "\nSnippets it looked at:\n")
          (dolist (candidate candidates)
            (insert (if (member (snippets-lsp--get candidate "id") cited) "✓ " "  "))
            (snippets-lsp--insert-snippet-button candidate)
            (insert "  " (snippets-lsp--file-line (snippets-lsp--get candidate "location")) "\n")))
        (when (equal status "noMatch")
          (insert "\n")
          (insert-text-button "Save a snippet for this question" 'type 'snippets-lsp-save-question)
          (insert "\n"))
        (insert "\n" (propertize "RET insert · o open definition · TAB next · q close" 'face 'snippets-lsp-hint) "\n")
        (goto-char (point-min))
        (let ((first (next-button (point))))
          (when first (goto-char first)))))
    (pop-to-buffer buffer)
    buffer))

(defun snippets-lsp--item-at (&optional pos)
  (let ((button (button-at (or pos (point)))))
    (and button (button-get button 'snippets-lsp-item))))

(defun snippets-lsp--insert-button (button)
  (snippets-lsp-insert (button-get button 'snippets-lsp-item)))

(defun snippets-lsp-insert (item)
  "Inserts the snippet ITEM where the question was asked.
ITEM is a citation or a candidate; the server learns the question's words."
  (interactive (list (or (snippets-lsp--item-at) (user-error "No snippet here"))))
  (pcase-let ((`(,connection ,marker ,question) snippets-lsp--origin))
    (unless (and marker (buffer-live-p (marker-buffer marker)))
      (user-error "The buffer the question was asked in is gone"))
    (let* ((id (snippets-lsp--get item "id"))
           (answer-window (get-buffer-window (current-buffer)))
           (result (with-current-buffer (marker-buffer marker)
                     (snippets-lsp--request connection "snippets/snippetText"
                                            (list :id id
                                                  :textDocument (snippets-lsp--document connection)
                                                  :position (snippets-lsp--position connection marker))))))
      (when (window-live-p answer-window) (quit-window nil answer-window))
      (let ((window (get-buffer-window (marker-buffer marker))))
        (if window (select-window window) (pop-to-buffer (marker-buffer marker))))
      (goto-char marker)
      ;; Later lines take the first one's indentation, never the major mode's (markdown-mode's is slow).
      (if (and (bound-and-true-p yas-minor-mode) (fboundp 'yas-expand-snippet))
          (let ((yas-indent-line 'fixed))
            (yas-expand-snippet (snippets-lsp--yasnippet (snippets-lsp--get result "snippet"))))
        (insert (replace-regexp-in-string
                 "\n" (concat "\n" (make-string (current-indentation) ?\s)) (snippets-lsp--get result "text") t t)))
      ;; A refusal (learning off, a read-only library) is quiet: it changes nothing the user did.
      (snippets-lsp--execute connection "snippets.learn" (list :question question :id id)
                             (lambda (result) (snippets-lsp--learned connection question id result))))))

(defvar snippets-lsp-last-lesson nil
  "What the last insert from an answer taught the server.
That is (CONNECTION QUESTION ID RESULT); `snippets-lsp-forget-last' takes
it back.")

(defun snippets-lsp--learned (connection question id result)
  "Says what choosing ID for QUESTION taught the server, and keeps it.
RESULT is the reply of `snippets.learn' over CONNECTION."
  (when (and (not (snippets-lsp--get result "error")) (snippets-lsp--get result "path"))
    (setq snippets-lsp-last-lesson (list connection question id result))
    (let ((words (append (snippets-lsp--get result "learned") nil)))
      (message "snippets-lsp: learned from your choice: %s → \"%s\"; undo: M-x snippets-lsp-forget-last"
               (if words (string-join words ", ") "this question") (snippets-lsp--get result "title")))))

;;;###autoload
(defun snippets-lsp-forget-last ()
  "Takes back what the last snippet inserted from an answer taught the server.
A wrong line chosen in *snippets-ask* is undone without a shell."
  (interactive)
  (pcase-let ((`(,connection ,question ,id ,result) snippets-lsp-last-lesson))
    (unless connection
      (user-error "snippets-lsp: no choice of yours taught the server anything in this session"))
    (let* ((reply (snippets-lsp--request
                   connection "workspace/executeCommand"
                   (list :command "snippets.forget"
                         :arguments (vector (list :id id :question question
                                                  :words (vconcat (snippets-lsp--get result "learned")))))))
           (title (snippets-lsp--get reply "title")))
      (setq snippets-lsp-last-lesson nil)
      (if (or (> (or (snippets-lsp--get reply "forgotten") 0) 0) (eq t (snippets-lsp--get reply "forgotQuestion")))
          (message "snippets-lsp: forgot what \"%s\" learned from your choice" title)
        (message "snippets-lsp: \"%s\" had nothing left to forget" title))
      reply)))

(defun snippets-lsp-open-definition (&optional item)
  "Opens the definition of the snippet ITEM (default: the one at point)."
  (interactive)
  (let* ((item (or item (snippets-lsp--item-at) (user-error "No snippet here")))
         (location (snippets-lsp--get item "location"))
         (path (snippets-lsp--uri-to-path (snippets-lsp--get location "uri"))))
    (find-file-other-window path)
    (snippets-lsp--goto-position (snippets-lsp--get (snippets-lsp--get location "range") "start"))))

;;;; Save

(defun snippets-lsp--report-saved (result)
  (let ((error (snippets-lsp--get result "error")))
    (if error
        (message "snippets-lsp: %s" error)
      (message "Saved \"%s\" (trigger %s) to %s" (snippets-lsp--get result "title")
               (snippets-lsp--get result "trigger") (abbreviate-file-name (or (snippets-lsp--get result "path") ""))))
    result))

(defun snippets-lsp-save-question (&optional trigger)
  "After a declined ask, saves an empty snippet described by the question.
Prompts for its TRIGGER; an empty one lets the server derive it."
  (interactive)
  (pcase-let ((`(,connection ,marker ,question) snippets-lsp--origin))
    (unless (and marker (buffer-live-p (marker-buffer marker)))
      (user-error "The buffer the question was asked in is gone"))
    (let ((trigger (or trigger (read-string "Trigger (empty: the server derives one): "))))
      (with-current-buffer (marker-buffer marker)
        (let ((position (snippets-lsp--position connection marker)))
          (snippets-lsp--sync connection)
          (snippets-lsp--report-saved
           (snippets-lsp--execute connection "snippets.saveSelection"
                                  (append (list :textDocument (snippets-lsp--document connection)
                                                :range (list :start position :end position)
                                                :description question)
                                          (unless (string-empty-p trigger) (list :trigger trigger))))))))))

(defun snippets-lsp--default-title (text)
  "The title the server derives for TEXT.
Its first non-blank line, whitespace collapsed, cut at a word to 50."
  (let* ((line (or (cl-find-if (lambda (l) (not (string-blank-p l))) (split-string text "\n")) ""))
         (title (string-trim (replace-regexp-in-string "[ \t]+" " " line))))
    (if (<= (length title) 50)
        title
      (let ((cut (substring title 0 50)))
        (string-trim-right (if (string-match "\\`\\(.*\\) " cut) (match-string 1 cut) cut))))))

;;;###autoload
(defun snippets-lsp-save-region (start end &optional trigger title)
  "Saves the text from START to END as a snippet, as TRIGGER with TITLE.
Interactively, prompts for both: an empty trigger lets the server derive
one, and the title's default is shown."
  (interactive
   (progn
     (unless (use-region-p) (user-error "Select the text to save first"))
     (let* ((default (snippets-lsp--default-title (buffer-substring-no-properties (region-beginning) (region-end))))
            (trigger (read-string "Trigger (empty: the server derives one): "))
            (title (read-string (format "Title (default %s): " default) nil nil default)))
       (list (region-beginning) (region-end) trigger title))))
  (let* ((connection (snippets-lsp--require-connection))
         (default (snippets-lsp--default-title (buffer-substring-no-properties start end))))
    (snippets-lsp--sync connection)
    (snippets-lsp--report-saved
     (snippets-lsp--execute connection "snippets.saveSelection"
                            (append (list :textDocument (snippets-lsp--document connection)
                                          :range (list :start (snippets-lsp--position connection start)
                                                       :end (snippets-lsp--position connection end)))
                                    (when (and trigger (not (string-empty-p trigger))) (list :trigger trigger))
                                    ;; The default is what the server derives; sent only when changed, so a taken
                                    ;; derived title gets " 2" rather than a refusal.
                                    (when (and title (not (string-empty-p title)) (not (equal title default)))
                                      (list :title title)))))))

;;;; Doctor

;;;###autoload
(defun snippets-lsp-doctor ()
  "Shows what the server reads and every problem it finds.
Runs `snippets-lsp doctor' with this package's settings."
  (interactive)
  (let ((program (executable-find snippets-lsp-program))
        (buffer (get-buffer-create "*snippets-doctor*")))
    (unless program
      (user-error "snippets-lsp: `%s' is not on exec-path; install it or set `snippets-lsp-program' to its full path"
                  snippets-lsp-program))
    (with-current-buffer buffer
      (let ((inhibit-read-only t)
            (settings (let ((json-encoding-pretty-print nil)
                            (options (snippets-lsp-initialization-options)))
                        (if options (json-encode options) "{}"))))
        (erase-buffer)
        (insert (format "$ %s doctor --settings %s\n\n" snippets-lsp-program settings))
        (call-process program nil t nil "doctor" "--settings" settings))
      (special-mode)
      (goto-char (point-min)))
    (display-buffer buffer)
    buffer))

(provide 'snippets-lsp)
;;; snippets-lsp.el ends here
