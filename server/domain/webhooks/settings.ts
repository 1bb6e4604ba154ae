/** What the webhook operations need from the deployment. */
export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE: private addresses and `http:` allowed, for development and tests. */
  allowPrivate: boolean;
  /** The clock rotations are timed by; tests move it. */
  now: () => Date;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  allowPrivate: false,
  now: () => new Date(),
};
