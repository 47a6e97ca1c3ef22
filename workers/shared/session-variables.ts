/**
 * The request variables (`c.var`) of a service with its own D1 database and signed-in browser
 * users: the request id (createApp), the parsed config and the database (the service's services
 * middleware), and the signed-in user with the session's anti-forgery token (its session guard).
 * A service adds its own beside them.
 */
export type SessionVariables<Config, Db, User> = {
  requestId: string;
  config: Config;
  db: Db;
  /** Set by the session guard. */
  user: User;
  /** The session's anti-forgery token, carried by every form and script of the response. */
  csrfToken: string;
};
