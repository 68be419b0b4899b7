/** A failure a deployment's own tool reports to its caller: thrown in `run`, it becomes an isError result with this message. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
