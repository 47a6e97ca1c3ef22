// The turns several client connections take on an embedded database's one session (PGlite has one):
// the socket server hands each message of each connection to this queue, which runs them one at a
// time. A connection keeps its turn for as long as what it started is unfinished on the session:
// an extended-query group (Parse, Bind, Describe, Execute … up to its Sync), a COPY, a transaction.
// Otherwise another connection's Parse would replace the unnamed statement between this one's Parse
// and Bind, or its statements would run inside this one's transaction.
// Plain JavaScript: the database's thread (embedded-postgres-thread.mjs) loads it as it is.

const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I': ReadyForQuery's status outside a transaction
const TERMINATE = 0x58; // 'X'
/** A Sync message: ends an extended-query group a connection left open when it went away. */
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

/** Follows the backend messages of one reply (which may come in several chunks): the last one's type, and ReadyForQuery's status. */
class ReplyScanner {
  bytes = 0;
  header = new Uint8Array(5);
  filled = 0;
  remaining = 0;
  type = -1;
  status = -1;

  push(chunk) {
    this.bytes += chunk.length;
    let at = 0;
    while (at < chunk.length) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, chunk.length - at);
        // ReadyForQuery's body is its one status byte.
        if (this.type === READY_FOR_QUERY) this.status = chunk[at + take - 1];
        this.remaining -= take;
        at += take;
        continue;
      }
      this.header[this.filled++] = chunk[at++];
      if (this.filled < this.header.length) continue;
      this.filled = 0;
      this.type = this.header[0];
      this.status = -1;
      this.remaining = new DataView(this.header.buffer).getInt32(1) - 4;
    }
  }

  /** Whether the connection that sent `message` must keep its turn: the session is not back to idle. */
  keepsTurn(message) {
    if (message[0] === TERMINATE) return false;
    // No ReadyForQuery last: a group, a COPY or a startup is under way.
    if (this.type !== READY_FOR_QUERY || this.remaining > 0) return true;
    return this.status !== IDLE;
  }
}

/** A drop-in for the socket server's query queue (same methods), one per database. */
export class SessionQueue {
  queue = [];
  processing = false;
  /** The connection whose turn it is, or null when any may go. */
  holder = null;

  constructor(db) {
    this.db = db;
  }

  enqueue(handlerId, message, onData) {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.processQueue();
    });
  }

  async processQueue() {
    if (this.processing) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        let index = 0;
        if (this.holder !== null) {
          index = this.queue.findIndex((entry) => entry.handlerId === this.holder);
          // The holder's next message starts the queue again when it comes.
          if (index === -1) break;
        }
        const [entry] = this.queue.splice(index, 1);
        const reply = new ReplyScanner();
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(entry.message, {
              onRawData: (chunk) => {
                reply.push(chunk);
                entry.onData(chunk);
              },
            }),
          );
        } catch (error) {
          // The connection fails and goes away; it keeps its turn until clearTransactionIfNeeded ends it.
          this.holder = entry.handlerId;
          entry.reject(error);
          continue;
        }
        this.holder = reply.keepsTurn(entry.message) ? entry.handlerId : null;
        entry.resolve(reply.bytes);
      }
    } finally {
      this.processing = false;
    }
  }

  getQueueLength() {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId) {
    this.queue = this.queue.filter((entry) => {
      if (entry.handlerId !== handlerId) return true;
      entry.reject(new Error('Handler disconnected'));
      return false;
    });
  }

  /** A connection went away: whatever it left unfinished on the session (a group, a transaction) is ended, and the others go on. */
  async clearTransactionIfNeeded(handlerId) {
    if (this.holder !== handlerId) return;
    try {
      await this.db.runExclusive(() => this.db.execProtocolRawStream(SYNC, { onRawData: () => {} }));
      if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    } finally {
      if (this.holder === handlerId) this.holder = null;
      void this.processQueue();
    }
  }
}
