/** Where an event's record came from, as the event view says it (issue 37 item 3). */
export interface Origin {
  format: string | null;
  label: string;
  note: string | null;
  facts: Record<string, unknown> | null;
}

/** A lifecycle log's connection attempt (ADR 19), by what the log says became of it. */
const CONNECTION_TEXT: Readonly<Record<string, string>> = {
  connected: 'The host started the server and it connected.',
  'not connected': 'The host started the server and it did not connect: a timeout, for the retry budget.',
  'not shown': 'The host started the server; the log does not say whether it connected.',
};

/**
 * "Claude Desktop log, line 41 (answer on line 42)", and what its reader noted of the record: the host's cancel, a
 * late answer, the server's own request, a stderr line, an exit. Native records say only where they came from.
 */
export function originText(origin: Origin): { read: string; details: string[] } {
  const facts = origin.facts ?? {};
  const at = (key: string) => (typeof facts[key] === 'number' ? (facts[key] as number) : null);
  const line = at('line');
  const answer = at('answerLine');
  let read = origin.label;
  if (line !== null && line > 0) read += `, line ${line}`;
  const connection = typeof facts.connection === 'string' ? facts.connection : null;
  if (answer !== null && answer !== line) read += ` (${connection === null ? 'answer' : 'outcome'} on line ${answer})`;
  const details: string[] = [];
  if (connection !== null) details.push(CONNECTION_TEXT[connection] ?? `A connection attempt: ${connection}.`);
  if (typeof facts.outcome === 'string') details.push(`What became of it, as the log says: ${facts.outcome}`);
  if (typeof facts.cancelled === 'string') {
    details.push(`The host cancelled it${facts.cancelled === '' ? '' : ` ("${facts.cancelled}")`}: a timeout.`);
  }
  if (facts.late === true) details.push('An answer came after the host gave up; it is kept, as late.');
  if (facts.sender === 'server') details.push("The server's own request; the answer is the host's.");
  if (facts.answered === true) details.push('An answer came, but this log does not show what it said.');
  if (facts.requestNotLogged === true) details.push('This log shows the answer only, not its request.');
  if (facts.truncated === true) {
    details.push('The log cut this frame ("... [truncated]"): what is shown is what the cut left readable.');
  }
  if (facts.idCut === true) details.push('The cut took its id: no later line can name it.');
  if (typeof facts.user === 'string') details.push(`A connection of user ${facts.user}.`);
  if (typeof facts.unanswered === 'string') details.push(`No answer: ${facts.unanswered}.`);
  if (facts.sharedName === true) {
    details.push('Two processes ran under this server name at once: the log cannot tell which one answered.');
  }
  if (typeof facts.stderr === 'string') details.push(`The server wrote to stderr: ${facts.stderr}`);
  else if (typeof facts.text === 'string') details.push(`The log says: ${facts.text}`);
  const exit = facts.exit as { code?: number | null; signal?: string | null } | undefined;
  if (exit !== undefined && exit !== null) {
    details.push(
      `The process exited${exit.code == null ? '' : ` with code ${exit.code}`}${exit.signal ? ` (${exit.signal})` : ''}.`,
    );
  }
  return { read, details };
}
