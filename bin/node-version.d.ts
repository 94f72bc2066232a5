export function requiredRange(): string;
export function nodeVersionProblem(version: string, range: string): string | undefined;
