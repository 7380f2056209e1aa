/** The bare dynamic page inside the floor of a signed-in frame (./layout.tsx). */
export { default } from '../page';
